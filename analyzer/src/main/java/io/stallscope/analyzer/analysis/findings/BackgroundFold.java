package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Background work no request-path thread waited on (scheduler flushes, the log cleaner, index flushes) as one
 * line after every other finding: "background I/O: N ops, longest X, nobody waited". Listed one by one, a
 * 2.6 s segment_flush on kafka-scheduler-2 outranked the 90 ms the producers lost behind a handler's
 * snapshot fsync; folded, it is still there for whoever asks why the disk was busy.
 */
final class BackgroundFold {
    /** An agent op this long on a background thread is counted (the slow-op threshold). */
    static final long OP_NANOS = 100_000_000L;
    /** Folded findings listed in the evidence; the rest are counted. */
    static final int LISTED = 12;

    private BackgroundFold() {
    }

    /** The findings with those that hurt no client and involve only background threads folded into one, last. */
    static List<Finding> fold(List<Finding> ordered, Analysis a) {
        Recording rec = a.recording();
        List<Finding> kept = new ArrayList<>();
        List<Finding> folded = new ArrayList<>();
        for (Finding f : ordered) (background(f) ? folded : kept).add(f);
        if (folded.isEmpty()) return ordered;
        long ops = 0;
        Span longest = null;
        for (Span s : rec.spans) {
            if (s.duration() < OP_NANOS || s.end() < a.options().from() || s.start() > a.options().to()) continue;
            if (!RequestPath.background(rec.threadName(s.thread()))) continue;
            ops++;
            if (longest == null || s.duration() > longest.duration()) longest = s;
        }
        boolean waited = folded.stream().anyMatch(f -> !f.kind().equals(Finding.SLOW_OP) && !f.kind().equals(Finding.ROLL_FSYNC_OFF_REQUEST_PATH)
            && !f.kind().equals(Finding.INDEX_UNMAP_STORM));
        String who = waited ? "no request-path thread waited (only background threads, on each other's locks)" : "nobody waited";
        String summary;
        long weight;
        long at;
        if (longest != null) {
            summary = String.format("background I/O: %s, longest %s (%s on %s), %s", Counts.of(ops, "op"), Durations.text(longest.duration()),
                longest.opName(), rec.threadName(longest.thread()), who);
            weight = longest.duration();
            at = longest.start();
        } else {
            Finding big = folded.stream().max(java.util.Comparator.comparingLong(Finding::weightNanos)).get();
            summary = String.format("background I/O: %s on background threads, longest ~%s, %s", Counts.of(folded.size(), "finding"),
                Durations.text(big.weightNanos()), who);
            weight = big.weightNanos();
            at = big.atNanos();
        }
        List<String> evidence = new ArrayList<>();
        Set<String> threads = new LinkedHashSet<>();
        for (Finding f : folded) {
            threads.addAll(f.threads());
            if (evidence.size() < LISTED) {
                evidence.add("[" + f.kind() + "] " + f.summary() + (f.kind().equals(Finding.SLOW_OP) && !f.evidence().isEmpty()
                    ? "; " + f.evidence().get(0) : ""));
            }
        }
        if (folded.size() > LISTED) evidence.add(Counts.of(folded.size() - LISTED, "more background finding") + " (all in --json: findings[].folded)");
        java.util.Map<String, Object> details = new java.util.LinkedHashMap<>();
        details.put("ops", ops);
        details.put("nobodyWaited", !waited);
        details.put("folded", folded.stream().map(BackgroundFold::foldedEntry).toList());
        kept.add(new Finding(Finding.BACKGROUND_IO, summary, List.copyOf(threads), evidence, weight, details, at, Harm.NONE));
        return kept;
    }

    /** Hurt no client, and every thread in it does background work only. */
    static boolean background(Finding f) {
        if (f.harm().hurt() || f.threads().isEmpty() || f.kind().equals(Finding.BACKGROUND_IO)) return false;
        for (String t : f.threads()) {
            if (!RequestPath.background(t)) return false;
        }
        return true;
    }

    /** One folded finding in the JSON, its keys always in this order (Map.of's order changes from one JVM to the next). */
    static java.util.Map<String, Object> foldedEntry(Finding f) {
        java.util.Map<String, Object> entry = new java.util.LinkedHashMap<>();
        entry.put("kind", f.kind());
        entry.put("summary", f.summary());
        return entry;
    }
}
