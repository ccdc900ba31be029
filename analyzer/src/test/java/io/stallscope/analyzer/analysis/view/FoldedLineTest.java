package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.analysis.Finding;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The folded background line is shown last even when --top cuts the findings before it. */
class FoldedLineTest {
    private static Finding finding(String kind, int n) {
        return new Finding(kind, kind + " " + n, List.of(), List.of(), n);
    }

    @Test
    void theFoldedLineSurvivesTheTop() {
        List<Finding> all = new ArrayList<>();
        for (int i = 0; i < 12; i++) all.add(finding(Finding.SLOW_OP, i));
        all.add(finding(Finding.BACKGROUND_IO, 99));
        List<Finding> top = ReportViews.topWithFold(all, 10);
        assertThat(top).hasSize(10);
        assertThat(top.get(9).kind()).isEqualTo(Finding.BACKGROUND_IO);
        assertThat(top.subList(0, 9)).extracting(Finding::summary).containsExactly(
                "slow-op 0", "slow-op 1", "slow-op 2", "slow-op 3", "slow-op 4", "slow-op 5", "slow-op 6", "slow-op 7", "slow-op 8");
        // nothing to keep: the top as it was
        assertThat(ReportViews.topWithFold(all.subList(0, 12), 10)).isEqualTo(all.subList(0, 10));
        assertThat(ReportViews.topWithFold(all.subList(8, 13), 10)).isEqualTo(all.subList(8, 13));
    }
}
