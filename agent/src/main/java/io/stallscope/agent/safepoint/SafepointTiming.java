package io.stallscope.agent.safepoint;

import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.bootstrap.ThreadRegistry;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.report.jfr.ForeignRecordings;
import jdk.jfr.consumer.RecordedEvent;

import java.lang.instrument.Instrumentation;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Times every safepoint's synchronization in process, from the JVM's own JFR events or from HotSpot's safepoint
 * counters ({@link Source}): the histogram, and a slow line and JFR event for each one at or over the threshold,
 * naming the thread whose index lookup held it up. What held a safepoint up stops the whole broker, and neither
 * Kafka's metrics nor the GC log say so.
 */
public final class SafepointTiming implements AutoCloseable {
    /** Where the syncs are read from. */
    public enum Source {
        /** The JVM's JFR events (Java 14+): each sync exactly, with its VM operation; starts a recording. */
        JFR,
        /** HotSpot's perf counters, polled: no recording, no VM operation, a sync placed to within a poll. */
        COUNTERS
    }

    private final AutoCloseable stream;
    private final SafepointMetrics metrics;
    private final ExecutorService slowPath;
    private final String summary;

    private SafepointTiming(AutoCloseable stream, SafepointMetrics metrics, ExecutorService slowPath, String summary) {
        this.stream = stream;
        this.metrics = metrics;
        this.slowPath = slowPath;
        this.summary = summary;
    }

    /** Timing from JFR's events: see {@link #start(Source, Instrumentation, MeterRegistry, long, boolean, Consumer, int)}. */
    public static SafepointTiming start(MeterRegistry registry, long thresholdNanos, boolean jfrEvents,
                                        Consumer<String> warn, int perMinute) throws ReflectiveOperationException {
        return start(Source.JFR, null, registry, thresholdNanos, jfrEvents, warn, perMinute);
    }

    /**
     * @param inst           to open HotSpot's counters to the agent (COUNTERS), or null where they are open
     * @param thresholdNanos a sync at least this long gets a line and an event
     * @param jfrEvents      whether to write stallscope.SafepointSync events (jfr=true)
     * @throws UnsupportedOperationException where the source cannot run (before Java 14 for JFR, a JVM without
     *                                       perf data for COUNTERS), with the reason
     */
    public static SafepointTiming start(Source source, Instrumentation inst, MeterRegistry registry, long thresholdNanos,
                                        boolean jfrEvents, Consumer<String> warn, int perMinute)
        throws ReflectiveOperationException {
        SafepointCounters counters = null;
        if (source == Source.COUNTERS) {
            String[] why = new String[1];
            counters = SafepointCounters.find(inst, why);
            if (counters == null) {
                throw new UnsupportedOperationException(why[0]);
            }
        }
        SafepointMetrics metrics = new SafepointMetrics(registry);
        SafepointLines lines = new SafepointLines(warn, perMinute);
        // JFR records nothing committed on a stream's own thread, and the line's append may wait for a slow disk:
        // a slow sync is told from a thread of its own, a few queued at most (a storm of them is a few lines anyway)
        ThreadPoolExecutor slowPath = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(64),
            r -> {
                Thread t = new Thread(r, "stallscope-safepoint-lines");
                t.setDaemon(true);
                return t;
            }, new ThreadPoolExecutor.DiscardPolicy());
        Consumer<SafepointSync> timed = sync -> {
            metrics.record(sync);
            if (sync.syncNanos >= thresholdNanos) {
                slowPath.execute(() -> {
                    // looked for as soon as the JVM's events arrive: a thread's ring keeps only its last long ops
                    long start = SafepointHolder.toNanoTime(sync.startEpochNanos);
                    List<SafepointHolder.Candidate> threads = SafepointHolder.liveThreads(ThreadRegistry.live());
                    // a merged sync's slow safepoint fell somewhere between two reads (nanoTime both, no slack but the
                    // clocks'): the one that took at least its share was held up by a lookup that overlapped the window
                    // as long
                    SafepointHolder holder = sync.windowStartNanos != 0
                        ? SafepointHolder.findWithin(sync.windowStartNanos, start + sync.syncNanos,
                            sync.syncNanos / sync.safepoints - SafepointHolder.SLACK_NANOS, threads)
                        : SafepointHolder.find(start, start + sync.syncNanos, sync.slackNanos, threads);
                    if (jfrEvents) {
                        commit(sync, holder);
                    }
                    lines.slow(sync, holder);
                });
            }
        };
        AutoCloseable stream;
        try {
            stream = source == Source.COUNTERS ? SafepointPoller.start(counters, timed)
                : SafepointStream.start(handler(new SafepointJoin(timed)));
        } catch (ReflectiveOperationException | RuntimeException | Error e) {
            slowPath.shutdownNow();
            throw e;
        }
        return new SafepointTiming(stream, metrics, slowPath,
            "safepoint timing" + (source == Source.COUNTERS ? " from HotSpot's counters" : "") + ", slow from "
                + (thresholdNanos / 1_000_000.0) + " ms");
    }

    /** Feeds the join; an event the JVM shaped otherwise is passed over, never thrown into the stream's thread. */
    static Consumer<RecordedEvent> handler(SafepointJoin join) {
        return e -> {
            try {
                switch (e.getEventType().getName()) {
                    case SafepointStream.BEGIN:
                        join.begin(e.getLong("safepointId"), e.getInt("totalThreadCount"));
                        break;
                    case SafepointStream.SYNC:
                        Instant start = e.getStartTime();
                        join.synchronization(e.getLong("safepointId"),
                            start.getEpochSecond() * 1_000_000_000L + start.getNano(),
                            e.getDuration().toNanos(), e.getInt("initialThreadCount"));
                        break;
                    case SafepointStream.OPERATION:
                        if (e.getBoolean("safepoint")) {
                            join.operation(e.getLong("safepointId"), e.getString("operation"));
                        }
                        break;
                    default:
                        break;
                }
            } catch (RuntimeException ignored) {
                // a field missing or renamed in some JDK: that event is not counted
            }
        };
    }

    private static void commit(SafepointSync sync, SafepointHolder holder) {
        if (ForeignRecordings.onlyOwn()) {
            return; // the timing's own stream is the only recording: no one would read the event
        }
        SafepointSyncEvent event = new SafepointSyncEvent();
        if (!event.isEnabled()) {
            return;
        }
        event.safepointId = sync.safepointId;
        event.operation = sync.operation;
        event.syncStart = sync.startEpochNanos / 1_000_000L;
        event.syncTime = sync.syncNanos;
        event.runningAtStart = sync.initialRunning;
        event.threads = sync.totalThreads;
        if (holder != null) {
            event.behindThread = holder.thread;
            event.behindOp = OpKind.name(holder.op);
            event.behindPath = holder.path;
        }
        event.commit();
    }

    /** The clause of the start-up line. */
    public String summary() {
        return summary;
    }

    @Override
    public void close() {
        try {
            stream.close();
        } catch (Exception ignored) {
            // stopping: nothing left to tell
        }
        slowPath.shutdown();
        try {
            // what was already learned is still told, unless a line's append hangs
            slowPath.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        metrics.close();
    }
}
