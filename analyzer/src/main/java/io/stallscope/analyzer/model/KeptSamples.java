package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The samples kept after their window of chunks was analysed, for what reads samples once the waits are found
 * (findings' storage tallies, span evidence, thread states, the HTML timeline): each thread's every
 * {@link #stride()}-th sample, carrying the weight of the samples dropped since the thread's last kept one, so that
 * a thread's sum of weights stays what it was (but for its last few samples, and a weight's 16-bit cap). When the
 * kept samples pass the budget the stride doubles and every other kept sample of each thread is dropped, so the
 * set is bounded and depends only on the recording, never on timing or thread scheduling.
 */
public final class KeptSamples {
    private final int budget;
    private final List<SampleBlock> blocks = new ArrayList<>();
    private int stride = 1;
    private int kept;
    /** Per thread: samples seen so far, in window order (decides which are kept). */
    private long[] seen = new long[64];
    private long seenTotal;
    /** Per thread: the weight of samples dropped since its last kept one, for its next kept one. */
    private long[] carry = new long[64];

    public KeptSamples(int budget) {
        this.budget = Math.max(1, budget);
    }

    /** Keeps every stride-th sample of each thread of {@code window}, whose lanes are in time order. */
    public void keep(Samples window) {
        // Sized to what is kept: grown by doubling it made twice its size in garbage every window.
        SampleBlock.Builder b = new SampleBlock.Builder(keptOf(window));
        for (int t = 0; t < window.laneCount(); t++) {
            Samples.Lane lane = window.lane(t);
            if (lane.size() == 0) continue;
            if (t >= seen.length) {
                seen = Arrays.copyOf(seen, Math.max(t + 1, seen.length * 2));
                carry = Arrays.copyOf(carry, seen.length);
            }
            for (Samples.Cursor c = lane.cursor(0); c.next(); ) {
                if (seen[t]++ % stride == 0) {
                    b.add(c.time(), t, c.stack(), c.stateOrdinal(), weigh(c.weight() + carry[t]));
                    carry[t] = 0;
                } else {
                    carry[t] += c.weight();
                }
            }
        }
        seenTotal += window.size();
        if (b.size() > 0) {
            SampleBlock block = b.build();
            blocks.add(block);
            kept += block.size();
        }
        while (kept > budget) halve();
    }

    /** How many of {@code window}'s samples {@link #keep} keeps: of each thread's, the seen-counts that are multiples of the stride. */
    private int keptOf(Samples window) {
        long n = 0;
        for (int t = 0; t < window.laneCount(); t++) {
            long from = t < seen.length ? seen[t] : 0;
            long to = from + window.lane(t).size();
            // Multiples of the stride in [from, to).
            n += (to + stride - 1) / stride - (from + stride - 1) / stride;
        }
        return (int) Math.min(Integer.MAX_VALUE - 8, n);
    }

    /**
     * Doubles the stride: a thread's kept samples had seen-counts that are multiples of the stride, in order, so
     * keeping those at even positions keeps exactly the multiples of the doubled stride.
     */
    private void halve() {
        stride *= 2;
        long[] position = new long[seen.length];
        // Weight dropped at an odd position goes to the next even one (of the thread's next block, if need be).
        long[] dropped = new long[seen.length];
        List<SampleBlock> halved = new ArrayList<>();
        kept = 0;
        for (SampleBlock block : blocks) {
            // At most half of each thread's samples, rounded up, are kept.
            SampleBlock.Builder b = new SampleBlock.Builder(block.size() / 2 + block.threads());
            for (int r = 0; r < block.threads(); r++) {
                int t = block.threadId(r);
                for (int i = block.threadFrom(r); i < block.threadTo(r); i++) {
                    if (position[t]++ % 2 == 0) {
                        b.add(block.time(i), t, block.stack(i), block.state(i), weigh(block.weight(i) + dropped[t]));
                        dropped[t] = 0;
                    } else {
                        dropped[t] += block.weight(i);
                    }
                }
            }
            if (b.size() > 0) {
                SampleBlock h = b.build();
                halved.add(h);
                kept += h.size();
            }
        }
        blocks.clear();
        blocks.addAll(halved);
        for (int t = 0; t < dropped.length; t++) carry[t] += dropped[t];
    }

    /** A weight, at most what a block stores (an unsigned 16-bit weight). */
    private static int weigh(long weight) {
        return (int) Math.min(Character.MAX_VALUE, weight);
    }

    /** Adds the kept samples to {@code into} (an empty {@link Samples}: the recording's, once the last window is kept). */
    public void addTo(Samples into) {
        for (SampleBlock b : blocks) into.add(b);
        into.sort();
    }

    /** 1 while every sample is kept; then each kept sample stands for this many. */
    public int stride() {
        return stride;
    }

    public int kept() {
        return kept;
    }

    /** Samples seen in all windows. */
    public long seen() {
        return seenTotal;
    }

    /** Samples seen per thread id, in all windows. */
    public long[] perThread() {
        return seen.clone();
    }

    /** Samples of thread {@code t} seen in all windows. */
    public long seen(int t) {
        return t >= 0 && t < seen.length ? seen[t] : 0;
    }
}
