package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * All samples, as the chunks' {@link SampleBlock}s: a big recording holds tens of millions, which as objects
 * would not fit a 1 GB heap. A thread's {@link Lane} is a view over its runs in the blocks, in chunk order; it
 * is what the analysis walks (a thread's timeline, a holder's stacks during a wait).
 */
public final class Samples {
    private final List<SampleBlock> blocks = new ArrayList<>();
    private Lane[] lanes = new Lane[64];
    private int total;

    /** Adds a block whose ids are the recording's (see {@link SampleBlock#remap}). */
    public void add(SampleBlock b) {
        blocks.add(b);
        for (int r = 0; r < b.threads(); r++) {
            int t = b.threadId(r);
            if (t >= lanes.length) lanes = Arrays.copyOf(lanes, Math.max(t + 1, lanes.length * 2));
            if (lanes[t] == null) lanes[t] = new Lane();
            lanes[t].add(b, b.threadFrom(r), b.threadTo(r));
        }
        total += b.size();
    }

    /** Forgets every sample: the analysis of a window of chunks is done with them (see KeptSamples). */
    public void clear() {
        blocks.clear();
        lanes = new Lane[64];
        total = 0;
    }

    /** One more than the highest thread id with a lane. */
    public int laneCount() {
        return lanes.length;
    }

    public List<SampleBlock> blocks() {
        return blocks;
    }

    public int size() {
        return total;
    }

    /** The samples of one thread, in time order once {@link #sort()} has run; never null. */
    public Lane lane(int threadId) {
        Lane l = threadId >= 0 && threadId < lanes.length ? lanes[threadId] : null;
        return l == null ? Lane.EMPTY : l;
    }

    /**
     * Puts every lane in time order. A lane's runs are sorted each, and follow each other in time unless chunks
     * overlap (a jfrsync file's JDK and profiler chunks): only such a lane is merged into a block of its own.
     */
    public void sort() {
        SampleBlock.Builder builder = null;
        for (Lane l : lanes) {
            if (l == null || l.sorted) continue;
            // One builder for every lane: its columns are reused, only each lane's block is allocated.
            if (builder == null) builder = new SampleBlock.Builder();
            l.sortInto(builder);
        }
    }

    /** One thread's samples: runs in blocks, one after the other. */
    public static final class Lane {
        /** Runs merged by picking among their heads; more (rare: many chunks overlapping at once) are sorted. */
        private static final int MERGED_RUNS = 8;
        static final Lane EMPTY = new Lane();

        private SampleBlock[] blocks = new SampleBlock[1];
        private int[] from = new int[1];
        /** The lane index of each run's first sample; {@code start[runs]} is the size. */
        private int[] start = new int[2];
        private int runs;
        private long last = Long.MIN_VALUE;
        private boolean sorted = true;

        void add(SampleBlock b, int lo, int hi) {
            if (hi <= lo) return;
            if (runs == blocks.length) {
                blocks = Arrays.copyOf(blocks, runs * 2);
                from = Arrays.copyOf(from, runs * 2);
                start = Arrays.copyOf(start, runs * 2 + 1);
            }
            if (b.time(lo) < last) sorted = false;
            last = Math.max(last, b.time(hi - 1));
            blocks[runs] = b;
            from[runs] = lo;
            start[runs + 1] = start[runs] + (hi - lo);
            runs++;
        }

        public int size() {
            return start[runs];
        }

        /** The run holding lane index {@code i}. */
        private int run(int i) {
            if (runs == 1) return 0;
            int lo = 0;
            int hi = runs - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (start[mid] <= i) lo = mid;
                else hi = mid - 1;
            }
            return lo;
        }

        /** Epoch nanoseconds, to the microsecond. */
        public long time(int i) {
            int r = run(i);
            return blocks[r].time(from[r] + i - start[r]);
        }

        public int stack(int i) {
            int r = run(i);
            return blocks[r].stack(from[r] + i - start[r]);
        }

        public State state(int i) {
            int r = run(i);
            return State.of(blocks[r].state(from[r] + i - start[r]));
        }

        /** How many sampling ticks this sample stands for (async-profiler batches idle ticks into one event). */
        public int weight(int i) {
            int r = run(i);
            return blocks[r].weight(from[r] + i - start[r]);
        }

        /** Index of the first sample at or after {@code t}. */
        public int firstAtOrAfter(long t) {
            // The run first (the first whose last sample is at or after t), then within it: each probe of a plain
            // binary search would look the run up again.
            int r = 0;
            int rh = runs;
            while (r < rh) {
                int mid = (r + rh) >>> 1;
                if (blocks[mid].time(from[mid] + start[mid + 1] - start[mid] - 1) < t) r = mid + 1;
                else rh = mid;
            }
            if (r == runs) return size();
            SampleBlock b = blocks[r];
            int lo = from[r];
            int hi = from[r] + start[r + 1] - start[r];
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (b.time(mid) < t) lo = mid + 1;
                else hi = mid;
            }
            return start[r] + lo - from[r];
        }

        /** A cursor before lane index {@code i}: {@link Cursor#next()} moves onto it. */
        public Cursor cursor(int i) {
            return new Cursor(this, i);
        }

        /** A cursor before the first sample at or after {@code t}. */
        public Cursor cursorAt(long t) {
            return new Cursor(this, firstAtOrAfter(t));
        }

        private void sortInto(SampleBlock.Builder builder) {
            SampleBlock b;
            if (runs <= MERGED_RUNS) {
                b = SampleBlock.merge(blocks, from, start, runs);
            } else {
                for (Cursor c = cursor(0); c.next(); ) builder.add(c.time(), 0, c.stack(), c.stateOrdinal(), c.weight());
                b = builder.build();
            }
            blocks = new SampleBlock[] {b};
            from = new int[] {0};
            start = new int[] {0, b.size()};
            runs = 1;
            last = b.lastTime();
            sorted = true;
        }
    }

    /**
     * Walks a lane in order without looking each sample's run up: the analysis's passes over millions of
     * samples use this. {@code next()} moves to the next sample and says whether there is one.
     */
    public static final class Cursor {
        private final Lane lane;
        private int run;
        private SampleBlock b;
        private int pos;
        private int end;
        private int index;

        Cursor(Lane lane, int i) {
            this.lane = lane;
            this.index = i - 1;
            if (lane.runs == 0 || i >= lane.size()) {
                run = lane.runs;
                pos = end = 0;
                return;
            }
            run = lane.run(i);
            b = lane.blocks[run];
            pos = lane.from[run] + i - lane.start[run] - 1;
            end = lane.from[run] + lane.start[run + 1] - lane.start[run];
        }

        public boolean next() {
            if (++pos < end) {
                index++;
                return true;
            }
            if (run + 1 >= lane.runs) {
                pos = end;
                return false;
            }
            run++;
            b = lane.blocks[run];
            pos = lane.from[run];
            end = pos + lane.start[run + 1] - lane.start[run];
            index++;
            return true;
        }

        /** The current sample's index in its lane. */
        public int index() {
            return index;
        }

        public long time() {
            return b.time(pos);
        }

        public int stack() {
            return b.stack[pos];
        }

        public State state() {
            return State.of(b.state[pos]);
        }

        byte stateOrdinal() {
            return b.state[pos];
        }

        public int weight() {
            return b.weight[pos];
        }
    }
}
