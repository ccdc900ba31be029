package io.stallscope.agent.stopstart;

import io.stallscope.agent.model.SubjectPaths;

import java.io.File;
import java.lang.reflect.Method;
import java.util.Collection;

/**
 * Turns the phases' enter and exit calls into one {@link Breakdown} per stop (LogManager.shutdown) and per start
 * (LogManager.loadLogs), and hands each finished one to {@link BreakdownReporter}. The log-level phases are timed
 * only while a stop or a start is under way: the same methods run at every roll and retention delete, and
 * those are the timing points' business.
 */
final class StopStartRecorder {
    /** Returned for a nested call of a phase already timed on this thread (shutdown() calling shutdown(long)). */
    private static final long NESTED = Long.MIN_VALUE + 1;

    private final BreakdownReporter reporter;
    private final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[Phase.ALL.length]);
    /** The partition this thread is flushing, closing or loading: [name, log dir]. */
    private final ThreadLocal<String[]> currentLog = new ThreadLocal<>();
    private volatile Breakdown stop;
    private volatile Breakdown start;
    /** The last stop's breakdown, until the broker's own shutdown ends (its end line). */
    private volatile Breakdown lastStop;
    private volatile long serverStopBegan;
    private volatile long shutdownHookNanos;

    StopStartRecorder(BreakdownReporter reporter) {
        this.reporter = reporter;
    }

    /** The JVM began its shutdown (a signal, or System.exit): the stop's outside start. */
    void shutdownBegan(long nanos) {
        shutdownHookNanos = nanos;
    }

    long enter(Phase p, Object self, Object arg0, Object arg1) {
        switch (p) {
            case STOP:
                return outer(p, () -> beginStop(self));
            case LOAD_LOGS:
                return outer(p, this::beginStart);
            case SERVER_STOP:
                return outer(p, () -> {
                    serverStopBegan = System.nanoTime();
                    lastStop = null;
                });
            case LOAD_LOG: {
                Breakdown b = start;
                if (b == null) {
                    return StopStartHooks.SKIP;
                }
                String[] log = logOfDir(arg0);
                if (log != null && arg1 instanceof Boolean) {
                    b.previousStop(log[1], (Boolean) arg1);
                }
                return timed(p, log, b);
            }
            case SEGMENT_RECOVER:
                return start == null ? StopStartHooks.SKIP : timed(p, null, null);
            case FLUSH:
            case LOG_CLOSE: {
                Breakdown b = stop;
                if (b == null) {
                    return StopStartHooks.SKIP;
                }
                return timed(p, logOfDir(SubjectPaths.pathOf(self)), p == Phase.LOG_CLOSE ? b : null);
            }
            case SEGMENT_FLUSH:
                // only the segments the stop's log flush writes, not the rolls' flushes on other threads meanwhile
                return stop == null || depth.get()[Phase.FLUSH.ordinal()] == 0 ? StopStartHooks.SKIP : timed(p, null, null);
            case CHECKPOINT:
            case SEGMENT_CLOSE:
                return stop == null ? StopStartHooks.SKIP : timed(p, null, null);
            default:
                // index trim, time-index last entry, truncation: the parts of a segment's close (KAFKA-5297); the
                // same calls elsewhere in a stop (the raft log's own close) are not the segment-close phase
                return stop == null || depth.get()[Phase.SEGMENT_CLOSE.ordinal()] == 0
                    ? StopStartHooks.SKIP : timed(p, null, null);
        }
    }

    void exit(Phase p, long began, Object self, Object arg0) {
        int[] d = depth.get();
        d[p.ordinal()]--;
        if (began == NESTED) {
            return;
        }
        long now = System.nanoTime();
        long took = now - began;
        switch (p) {
            case STOP:
                endStop(now);
                return;
            case LOAD_LOGS:
                endStart(now);
                return;
            case SERVER_STOP:
                endServerStop(now);
                return;
            default:
                break;
        }
        Breakdown b = p == Phase.LOAD_LOG || p == Phase.SEGMENT_RECOVER ? start : stop;
        if (b == null) {
            return;
        }
        String[] log = currentLog.get();
        String logDir = p == Phase.CHECKPOINT ? pathOf(arg0) : log == null ? null : log[1];
        b.add(p, took, logDir);
        if (p == Phase.SEGMENT_FLUSH) {
            b.addBytesFlushed(SegmentSize.of(self));
        }
        if (p == Phase.FLUSH || p == Phase.LOG_CLOSE || p == Phase.LOAD_LOG) {
            if (log != null) {
                b.addLog(log[0], log[1], took, p != Phase.FLUSH);
            }
            if (p != Phase.FLUSH) {
                b.closingEnded();
            }
            currentLog.remove();
        }
    }

    private long outer(Phase p, Runnable begin) {
        int[] d = depth.get();
        if (d[p.ordinal()] > 0) {
            d[p.ordinal()]++;
            return NESTED;
        }
        begin.run();
        d[p.ordinal()]++;
        return System.nanoTime();
    }

    private long timed(Phase p, String[] log, Breakdown closing) {
        int[] d = depth.get();
        if (d[p.ordinal()]++ > 0) {
            return NESTED;
        }
        long now = System.nanoTime();
        if (log != null) {
            currentLog.set(log);
            if (closing != null) {
                closing.closingStarted(log[0], now);
            }
        }
        return now;
    }

    private void beginStop(Object logManager) {
        Breakdown b = new Breakdown("stop", System.nanoTime());
        long hook = shutdownHookNanos;
        if (hook != 0) {
            // Kafka's own hook may call the broker's shutdown before the agent's hook runs: the earlier of the two
            long server = serverStopBegan;
            b.signalAt(server != 0 && server < hook ? server : hook);
        }
        b.expectLogs(logCount(logManager));
        stop = b;
        reporter.began(b);
    }

    private void endStop(long now) {
        Breakdown b = stop;
        if (b == null) {
            return;
        }
        b.end(now);
        stop = null;
        lastStop = b;
        reporter.ended(b);
    }

    /** The broker's shutdown returned: what followed the log manager (controller, raft, the rest) ends here. */
    private void endServerStop(long now) {
        Breakdown b = lastStop;
        long began = serverStopBegan;
        lastStop = null;
        serverStopBegan = 0;
        if (b == null || began == 0) {
            return; // no log manager stopped inside it (not a broker, or the agent attached mid-stop)
        }
        long signal = b.signal();
        b.serverStopped(signal != 0 && signal < began ? signal : began, now);
        reporter.serverStopped(b);
    }

    private void beginStart() {
        Breakdown b = new Breakdown("start", System.nanoTime());
        start = b;
        reporter.began(b);
    }

    private void endStart(long now) {
        Breakdown b = start;
        if (b == null) {
            return;
        }
        b.end(now);
        start = null;
        reporter.ended(b);
    }

    /** [partition, log dir] of a partition's directory (a File or a path), or null. */
    private static String[] logOfDir(Object dir) {
        String path = pathOf(dir);
        if (path == null) {
            return null;
        }
        File f = new File(path);
        return new String[] {f.getName(), f.getParent()};
    }

    private static String pathOf(Object o) {
        if (o instanceof File) {
            return ((File) o).getPath();
        }
        return o instanceof String ? (String) o : null;
    }

    /** How many logs the stop has to close: LogManager.allLogs().size(), a Scala Iterable or a Java Set; -1 if unknown. */
    private static int logCount(Object logManager) {
        if (logManager == null) {
            return -1;
        }
        try {
            Method all = logManager.getClass().getMethod("allLogs");
            Object logs = all.invoke(logManager);
            if (logs instanceof Collection) {
                return ((Collection<?>) logs).size();
            }
            // through the public Scala interface: the collection's own class may not be public
            Class<?> iterable = Class.forName("scala.collection.IterableOnceOps", false,
                logManager.getClass().getClassLoader());
            Object size = iterable.getMethod("size").invoke(logs);
            return size instanceof Integer ? (Integer) size : -1;
        } catch (Throwable t) {
            return -1;
        }
    }
}
