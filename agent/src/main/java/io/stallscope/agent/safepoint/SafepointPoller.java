package io.stallscope.agent.safepoint;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Reads HotSpot's safepoint counters every 10 ms on a daemon thread of its own and hands on what grew between two
 * reads as syncs. The thread is a Java thread, so it is stopped at every safepoint too: a read never falls inside
 * one, and a sync long enough to matter ends with the thread woken as the safepoint ends, which places the sync in
 * time to within the wake-up. Costs 100 wake-ups a second and three loads each.
 */
final class SafepointPoller implements AutoCloseable {
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** How far off a sync's place in time may be: the wake-up after it, up to a poll's interval on a busy machine. */
    static final long SLACK_NANOS = INTERVAL_NANOS + SafepointHolder.SLACK_NANOS;
    static final String UNNAMED = "unnamed";

    private final Thread thread;
    private volatile boolean running = true;

    private SafepointPoller(SafepointCounters counters, Consumer<SafepointSync> out) {
        thread = new Thread(() -> poll(counters, out), "stallscope-safepoint-poller");
        thread.setDaemon(true);
    }

    static SafepointPoller start(SafepointCounters counters, Consumer<SafepointSync> out) {
        SafepointPoller poller = new SafepointPoller(counters, out);
        poller.thread.start();
        return poller;
    }

    private void poll(SafepointCounters counters, Consumer<SafepointSync> out) {
        long[] before = new long[3];
        long[] after = new long[3];
        try {
            counters.read(before);
            long previousRead = System.nanoTime();
            while (running) {
                LockSupport.parkNanos(INTERVAL_NANOS);
                counters.read(after);
                long read = System.nanoTime();
                between(before, after, previousRead, read, counters.nanosPerTick(), out);
                previousRead = read;
                long[] t = before;
                before = after;
                after = t;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // the counters stopped reading (they cannot on a HotSpot that read them once): timing ends, the broker not
        }
    }

    /**
     * The syncs between two reads, {safepoints, sync ticks, whole ticks} each, taken at {@code previousReadNanos} and
     * {@code readNanos}. One safepoint is one sync, placed to end where the safepoint's operation began. Several are
     * one merged sync of their summed time: the counters do not say how it split between them, nor where each fell
     * between the reads, so its holder is looked for over that whole window ({@link SafepointHolder#findWithin}).
     * Nothing while the tick's length is not known yet ({@code nanosPerTick} 0: the first moments of the JVM).
     */
    static void between(long[] before, long[] after, long previousReadNanos, long readNanos, double nanosPerTick,
                        Consumer<SafepointSync> out) {
        long safepoints = after[0] - before[0];
        if (safepoints <= 0 || nanosPerTick <= 0) {
            return;
        }
        long sync = Math.max(0, Math.round((after[1] - before[1]) * nanosPerTick));
        long whole = Math.round((after[2] - before[2]) * nanosPerTick);
        // the sync's end is the operation's start: the safepoint ended as this thread woke; its whole time may not be
        // counted yet when the read came first, and then the sync is taken to have ended at the read
        long end = whole >= sync && safepoints == 1 ? readNanos - (whole - sync) : readNanos;
        long start = end - sync;
        out.accept(new SafepointSync(after[0], SafepointHolder.toEpochNanos(start), sync, UNNAMED, -1, -1,
            (int) Math.min(safepoints, Integer.MAX_VALUE), SLACK_NANOS, safepoints > 1 ? previousReadNanos : 0));
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(TimeUnit.SECONDS.toMillis(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
