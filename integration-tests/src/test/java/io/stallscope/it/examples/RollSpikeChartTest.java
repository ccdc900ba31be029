package io.stallscope.it.examples;

import io.stallscope.it.broker.HarnessDirs;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Draws docs/images/roll-spike.svg from the roll-spike experiment's per-round table in docs/lab/mitigations.md
 * into target/docs-images (copy it to docs/images after new runs are published), and checks every round's
 * numbers are in the picture.
 */
class RollSpikeChartTest {

    @Test
    void chartShowsEveryRoundOfTheExperiment() throws Exception {
        String md = Files.readString(Examples.root().resolve("docs/lab/mitigations.md"));
        List<RollSpikeChart.Round> rounds = RollSpikeChart.rounds(md);
        assertThat(rounds).extracting(RollSpikeChart.Round::rollFlush).contains(true, false);
        String svg = RollSpikeChart.svg(rounds);
        Path out = HarnessDirs.target().resolve("docs-images/roll-spike.svg");
        Files.createDirectories(out.getParent());
        Files.writeString(out, svg);
        for (RollSpikeChart.Round r : rounds) {
            assertThat(svg).contains("data-value=\"" + fmt(r.p999()) + "\"").contains("data-value=\"" + fmt(r.meanRoll()) + "\"");
        }
        assertThat(svg).startsWith("<svg").endsWith("</svg>\n").contains("Kafka " + rounds.get(0).kafka());
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? String.format("%.0f", v) : String.format(java.util.Locale.ROOT, "%.1f", v);
    }
}
