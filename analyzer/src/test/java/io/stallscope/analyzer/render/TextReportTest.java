package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.workload.Recorder;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The terminal report: lines a terminal shows whole, counts in agreement, and what threads did when nothing is found. */
class TextReportTest {
    private static String text(Path jfr) throws Exception {
        return text(jfr, Options.defaults());
    }

    private static String text(Path jfr, Options o) throws Exception {
        Recording rec = new Recording();
        JfrFileReader.read(jfr, rec, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        TextReport.write(Analyzer.analyze(rec, o), new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void linesFitAndCountsAgree() throws Exception {
        String text = text(Recorder.asyncProfiler("monitor"));
        assertThat(text).contains("Findings, most important first:").contains("Contended locks (from lock events)")
                .contains("source: recorded").containsPattern("holder: \\S+ \\(source: (recorded|inferred)");
        List<String> lines = text.lines().toList();
        // A line may pass the width only when it is one unbreakable word after its indent (a very long frame).
        assertThat(lines).allMatch(l -> l.length() <= TextWrap.WIDTH || !l.strip().contains(" "), "fits " + TextWrap.WIDTH + " columns");
        // Stacks continue on indented lines that begin with the caller.
        assertThat(lines).anyMatch(l -> l.matches("\\s{6,}<- \\S.*"));
        assertThat(text).doesNotContainPattern("\\b1 (waits|threads|chunks|samples|spans|lock events)\\b")
                .doesNotContainPattern("\\b([02-9]|\\d{2,}) (wait|thread|chunk|sample|span) ");
    }

    @Test
    void aWallRecordingWithoutLockEventsSaysWhatEachThreadDid() throws Exception {
        // The program's threads only (--threads ^states-): the JVM's own idle threads would tie with the idle two.
        String text = text(Recorder.wallOnly(), new Options(Pattern.compile("^states-"), Long.MIN_VALUE, Long.MAX_VALUE, 0, 10));
        assertThat(text).contains(", 0 lock events").contains("No lock contention or storage stall found.")
                .contains("This recording has no lock events")
                .contains("Thread states (3 threads sampled");
        List<String> lines = text.lines().toList();
        int busy = indexOf(lines, "states-busy");
        int sleeping = indexOf(lines, "states-sleeping");
        int parked = indexOf(lines, "states-parked");
        assertThat(busy).as("the busy thread comes first").isLessThan(sleeping).isLessThan(parked);
        assertThat(share(lines.get(busy), "runnable")).isGreaterThanOrEqualTo(80);
        assertThat(share(lines.get(sleeping), "sleeping") + share(lines.get(sleeping), "parked")).isGreaterThanOrEqualTo(80);
        assertThat(share(lines.get(parked), "sleeping") + share(lines.get(parked), "parked")).isGreaterThanOrEqualTo(80);
    }

    private static int indexOf(List<String> lines, String thread) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().startsWith(thread + " ")) return i;
        }
        throw new AssertionError("no states line for " + thread + " in:\n" + String.join("\n", lines));
    }

    /** "runnable 97%" in a states line, in percent; 0 when the state is absent, 100 for ">99%". */
    private static int share(String line, String state) {
        Matcher m = Pattern.compile("\\b" + state + " ([<>]?)(\\d+)%").matcher(line);
        if (!m.find()) return 0;
        return m.group(1).equals(">") ? 100 : Integer.parseInt(m.group(2));
    }
}
