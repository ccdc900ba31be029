package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Finding;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Findings ranked by impact: time waited times the threads involved, never by their kind alone. */
class FindingOrderTest {
    private static Finding finding(String kind, double ms, int threads) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < threads; i++) names.add("t" + i);
        return new Finding(kind, kind + " " + ms, names, List.of(), (long) (ms * 1e6));
    }

    private static List<String> ordered(Finding... fs) {
        List<Finding> l = new ArrayList<>(List.of(fs));
        FindingDetector.order(l);
        return l.stream().map(Finding::summary).toList();
    }

    @Test
    void aTinyOpUnderALockRanksBelowTheLockEightThreadsWaitedFor() {
        // as on the broker recording: 0.0-0.2 ms findings were put above a 736 ms lock, a 0.0 ms one above a 999.6 ms wait
        assertThat(ordered(finding(Finding.STALLED_OP_UNDER_LOCK, 0.2, 2), finding(Finding.SLOW_OP, 0.0, 1),
                finding(Finding.CONTENDED_LOCKS, 736.35, 8)))
                .containsExactly("contended-locks 736.35", "stalled-op-under-lock 0.2", "slow-op 0.0");
        assertThat(ordered(finding(Finding.SLOW_OP, 0.0, 1), finding(Finding.CONTENDED_LOCKS, 999.6, 1)))
                .containsExactly("contended-locks 999.6", "slow-op 0.0");
        // a bigger specific finding goes above it
        assertThat(ordered(finding(Finding.CONTENDED_LOCKS, 736.35, 8), finding(Finding.FSYNC_ON_PRODUCE, 999.6, 6)))
                .containsExactly("fsync-on-produce-path 999.6", "contended-locks 736.35");
    }

    @Test
    void theGenericRankingYieldsToASpecificFindingThatExplainsATenthOfIt() {
        // 8 threads x 736 ms; the specific finding explains 2 threads x 300 ms, about a tenth: it says what to fix
        assertThat(ordered(finding(Finding.CONTENDED_LOCKS, 736.35, 8), finding(Finding.HOLDER_IN_FILE_IO, 300, 2)))
                .containsExactly("holder-blocked-in-file-io 300.0", "contended-locks 736.35");
        assertThat(ordered(finding(Finding.CONTENDED_LOCKS, 736.35, 8), finding(Finding.HOLDER_IN_FILE_IO, 200, 2)))
                .containsExactly("contended-locks 736.35", "holder-blocked-in-file-io 200.0");
    }
}
