package io.stallscope.it.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/**
 * Acknowledgement latencies of a producer's records with their send times, so that any interval of the
 * run (the stall phase, the last second for the live view) has exact percentiles.
 */
final class LatencyLog {
    /** p50, p99, p99.9 and max in milliseconds of the records sent in an interval, and how many. */
    record Stats(long records, double p50, double p99, double p999, double max) {
        static final Stats NONE = new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }

    private long[] sentAt = new long[1 << 14];
    private long[] latency = new long[1 << 14];
    private int size;

    synchronized void add(long sentAtNanos, long latencyNanos) {
        if (size == sentAt.length) {
            sentAt = Arrays.copyOf(sentAt, size * 2);
            latency = Arrays.copyOf(latency, size * 2);
        }
        sentAt[size] = sentAtNanos;
        latency[size] = latencyNanos;
        size++;
    }

    /** Records sent in [from, to) (System.nanoTime), acknowledged by now. */
    Stats between(long from, long to) {
        long[] v;
        synchronized (this) {
            v = new long[size];
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (sentAt[i] >= from && sentAt[i] < to) {
                    v[n++] = latency[i];
                }
            }
            v = Arrays.copyOf(v, n);
        }
        if (v.length == 0) {
            return Stats.NONE;
        }
        Arrays.sort(v);
        return new Stats(v.length, ms(v, 0.50), ms(v, 0.99), ms(v, 0.999), v[v.length - 1] / 1e6);
    }

    /** Writes "sent_s,latency_ms" per record sent from {@code from} on, seconds counted from {@code from}. */
    void writeCsv(Path file, long from) throws IOException {
        StringBuilder sb = new StringBuilder("sent_s,latency_ms\n");
        synchronized (this) {
            for (int i = 0; i < size; i++) {
                if (sentAt[i] >= from) {
                    sb.append(String.format(Locale.ROOT, "%.4f,%.3f%n", (sentAt[i] - from) / 1e9, latency[i] / 1e6));
                }
            }
        }
        Files.writeString(file, sb);
    }

    private static double ms(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, Math.max(0, (int) Math.ceil(q * sorted.length) - 1))] / 1e6;
    }
}
