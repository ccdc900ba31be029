package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Groups the remote reads' waits in the reader pool's queue into bursts: waits of one recorded JVM that overlapped in
 * time, directly or through others (a read queued while another still waited). One burst is one saturation of the
 * pool, however many reads it held up; waits that only touch are two.
 */
final class PoolBursts {
    private PoolBursts() {
    }

    /** Waits of one file, by start, overlapping in a chain: from the first's start to the last one's end. */
    record Burst(int file, List<Span> waits, long start, long end) {
        long totalNanos() {
            return waits.stream().mapToLong(Span::duration).sum();
        }

        Span longest() {
            return waits.stream().max(Comparator.comparingLong(Span::duration).thenComparing(Span::start, Comparator.reverseOrder())).get();
        }
    }

    /** The bursts of {@code waits} (remote_queue_wait spans), each file's apart, the earliest first. */
    static List<Burst> of(List<Span> waits, Recording rec) {
        List<Span> sorted = new ArrayList<>(waits);
        sorted.sort(Comparator.comparingInt((Span s) -> fileOf(s, rec)).thenComparingLong(Span::start)
                .thenComparingLong(Span::end).thenComparingInt(Span::thread));
        List<Burst> out = new ArrayList<>();
        List<Span> current = new ArrayList<>();
        int file = -1;
        long end = Long.MIN_VALUE;
        for (Span w : sorted) {
            int f = fileOf(w, rec);
            if (!current.isEmpty() && (f != file || w.start() >= end)) {
                out.add(new Burst(file, List.copyOf(current), current.get(0).start(), end));
                current.clear();
            }
            if (current.isEmpty()) {
                file = f;
                end = w.end();
            }
            current.add(w);
            end = Math.max(end, w.end());
        }
        if (!current.isEmpty()) out.add(new Burst(file, List.copyOf(current), current.get(0).start(), end));
        out.sort(Comparator.comparingLong(Burst::start).thenComparingInt(Burst::file));
        return out;
    }

    /** The recorded JVM a span's thread belongs to: a pool is one broker's, never paired across files. */
    static int fileOf(Span s, Recording rec) {
        return s.thread() >= 0 && s.thread() < rec.threads.size() ? rec.threads.get(s.thread()).file() : -1;
    }
}
