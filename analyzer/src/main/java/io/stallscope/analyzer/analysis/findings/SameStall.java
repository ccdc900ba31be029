package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Finding;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * One stall, one finding: a {@code slow-op} that is the write or the read of a {@code write-behind-sendfile} (the
 * same thread, starting within the stalled append) says less about the same stall. It is kept as a line of that
 * finding's evidence instead of a finding of its own, which on LINE's capture put the reader's transfer_to and
 * the writer's records_append right under the finding that explains both.
 */
final class SameStall {
    private SameStall() {
    }

    static void merge(List<Finding> findings) {
        List<Finding> behind = findings.stream().filter(f -> f.kind().equals(Finding.WRITE_BEHIND_SENDFILE)
            && f.atNanos() != Finding.NO_MOMENT).toList();
        for (Finding w : behind) {
            Object writer = w.details().get("writerThread");
            Object reader = w.details().get("readerThread");
            List<String> evidence = new ArrayList<>(w.evidence());
            for (Iterator<Finding> it = findings.iterator(); it.hasNext(); ) {
                Finding s = it.next();
                if (!s.kind().equals(Finding.SLOW_OP) || s.threads().size() != 1 || s.atNanos() == Finding.NO_MOMENT) continue;
                String t = s.threads().get(0);
                // the overlap (the finding's moment) begins inside the writer's append and inside the reader's read
                boolean mine = (t.equals(writer) || t.equals(reader)) && s.atNanos() <= w.atNanos()
                    && w.atNanos() <= s.atNanos() + s.weightNanos();
                if (!mine) continue;
                evidence.add("same stall: " + s.summary());
                it.remove();
            }
            findings.set(findings.indexOf(w), w.with(evidence));
        }
    }
}
