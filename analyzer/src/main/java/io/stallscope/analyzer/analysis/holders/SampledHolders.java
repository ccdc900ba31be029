package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.analysis.stacks.SafepointStacks;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Safepoint;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.State;
import io.stallscope.analyzer.model.ThreadInfo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the samples taken during each slow safepoint's sync show each thread doing ({@link SafepointStacks}), tallied
 * window by window: a big recording's samples are dropped once their window is analysed (see
 * {@code StreamingAnalysis}), so each window's are read before they go. A sync whose events are read in a later
 * window than its samples is not seen in them.
 * <p>
 * Only samples from a sampler that runs while the JVM synchronizes count: async-profiler's (a signal from its own
 * thread). The JDK's own sampler takes no sample then (JDK 17 takes the Threads_lock to sample, and the VM thread
 * holds it through the sync), so a JDK-only recording infers nothing here.
 */
public final class SampledHolders {
    private final SafepointStacks stacks;
    /** Per safepoint (file, id): per thread id, what its samples in the sync showed. */
    private final Map<Long, Map<Integer, Tally>> tallies = new HashMap<>();

    public SampledHolders(SafepointStacks stacks) {
        this.stacks = stacks;
    }

    /** One thread's samples during one sync that show it not safe. */
    public static final class Tally {
        public int running;
        public int indexReads;
        public int faults;
        /** When the first and the last of them were taken (epoch ns). */
        public long first = Long.MAX_VALUE;
        public long last = Long.MIN_VALUE;
        /** The frame the last of them names (the index method, or the top Java frame). */
        public int frame = -1;
        /** Whether that last one was in an index read or a fault, not just running. */
        public boolean lastInIndex;

        public int count() {
            return running + indexReads + faults;
        }
    }

    private static long key(Safepoint s) {
        return ((long) s.file() << 48) ^ s.id();
    }

    /** Tallies the samples {@code rec} holds now (sorted) that fall in the sync of any of {@code slow}. */
    public void observe(Recording rec, List<Safepoint> slow) {
        if (slow.isEmpty() || rec.samples.size() == 0) return;
        for (Safepoint s : slow) {
            for (ThreadInfo t : rec.threads) {
                if (t.file() != s.file()) continue;
                Samples.Lane lane = rec.samples.lane(t.id());
                if (lane.size() == 0) continue;
                for (Samples.Cursor c = lane.cursorAt(s.syncStart()); c.next() && c.time() <= s.syncEnd(); ) {
                    // A JDK native-method sample has a Java frame on top, but the thread is in native code: safe.
                    if (c.state() == State.NATIVE) continue;
                    SafepointStacks.Doing d = stacks.doing(c.stack());
                    if (d == SafepointStacks.Doing.SAFE) continue;
                    Tally tally = tallies.computeIfAbsent(key(s), k -> new HashMap<>()).computeIfAbsent(t.id(), k -> new Tally());
                    switch (d) {
                        case PAGE_FAULT -> tally.faults++;
                        case INDEX_READ -> tally.indexReads++;
                        default -> tally.running++;
                    }
                    tally.first = Math.min(tally.first, c.time());
                    if (c.time() >= tally.last) {
                        tally.last = c.time();
                        tally.frame = stacks.frame(c.stack());
                        tally.lastInIndex = d != SafepointStacks.Doing.RUNNING;
                    }
                }
            }
        }
    }

    /** Per thread id, what its samples in the sync of {@code s} showed; empty when none showed a thread not safe. */
    public Map<Integer, Tally> of(Safepoint s) {
        return tallies.getOrDefault(key(s), Map.of());
    }
}
