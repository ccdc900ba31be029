package io.stallscope.agent.stopstart;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What one stop or one start spent, as the phases' advice reports it from every thread that does the work
 * (Kafka closes and loads logs on a pool per log dir). Times are summed over those threads. Bounded: at most
 * {@link #MAX_LOGS} partitions are timed one by one; beyond that they still count in the totals.
 */
public final class Breakdown {
    static final int MAX_LOGS = 200_000;
    private static final int MAX_DIRS = 1_000;

    /** "stop" or "start". */
    private final String kind;
    private final long beganNanos;
    private final long beganMillis;
    private final AtomicLongArray nanos = new AtomicLongArray(Phase.ALL.length);
    private final AtomicLongArray counts = new AtomicLongArray(Phase.ALL.length);
    private final Map<String, AtomicLongArray> dirNanos = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> dirLogs = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> logNanos = new ConcurrentHashMap<>();
    private final Map<Thread, Closing> closing = new ConcurrentHashMap<>();
    private final AtomicLong bytesFlushed = new AtomicLong();
    private final AtomicInteger uncleanDirs = new AtomicInteger();
    private final AtomicInteger cleanDirs = new AtomicInteger();
    private final Map<String, Boolean> dirClean = new ConcurrentHashMap<>();
    private volatile long endedNanos;
    private volatile long signalNanos;
    private volatile long stopBeganNanos;
    private volatile long stopEndedNanos;
    private volatile int expectedLogs = -1;
    volatile Object jfrEvent;

    Breakdown(String kind, long beganNanos) {
        this.kind = kind;
        this.beganNanos = beganNanos;
        this.beganMillis = System.currentTimeMillis();
    }

    public String kind() {
        return kind;
    }

    /** The partition being closed (or loaded) now on one thread, since when. */
    static final class Closing {
        final String log;
        final long since;

        Closing(String log, long since) {
            this.log = log;
            this.since = since;
        }
    }

    void add(Phase phase, long duration, String logDir) {
        nanos.addAndGet(phase.ordinal(), duration);
        counts.incrementAndGet(phase.ordinal());
        if (logDir != null) {
            AtomicLongArray perDir = dirNanos.get(logDir);
            if (perDir == null && dirNanos.size() < MAX_DIRS) {
                perDir = dirNanos.computeIfAbsent(logDir, d -> new AtomicLongArray(Phase.ALL.length));
            }
            if (perDir != null) {
                perDir.addAndGet(phase.ordinal(), duration);
            }
        }
    }

    /** A partition's share of the stop (its flush and close) or of the start (its load). */
    void addLog(String log, String logDir, long duration, boolean first) {
        if (log == null) {
            return;
        }
        AtomicLong t = logNanos.get(log);
        if (t == null && logNanos.size() < MAX_LOGS) {
            t = logNanos.computeIfAbsent(log, k -> new AtomicLong());
        }
        if (t != null) {
            t.addAndGet(duration);
        }
        if (first && logDir != null && (dirLogs.containsKey(logDir) || dirLogs.size() < MAX_DIRS)) {
            dirLogs.computeIfAbsent(logDir, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    void closingStarted(String log, long now) {
        closing.put(Thread.currentThread(), new Closing(log, now));
    }

    void closingEnded() {
        closing.remove(Thread.currentThread());
    }

    /** The log that has been closing (or loading) longest right now, or null. */
    Closing longestClosing() {
        Closing longest = null;
        for (Closing c : closing.values()) {
            if (longest == null || c.since < longest.since) {
                longest = c;
            }
        }
        return longest;
    }

    void previousStop(String logDir, boolean clean) {
        if (logDir != null && dirClean.size() < MAX_DIRS && dirClean.putIfAbsent(logDir, clean) == null) {
            (clean ? cleanDirs : uncleanDirs).incrementAndGet();
        }
    }

    void addBytesFlushed(long bytes) {
        if (bytes > 0) {
            bytesFlushed.addAndGet(bytes);
        }
    }

    /** The sizes of the segments the stop's log flushes wrote (each whole, so at most that much was dirty). */
    long bytesFlushed() {
        return bytesFlushed.get();
    }

    void signalAt(long nanos) {
        signalNanos = nanos;
    }

    /** The whole stop: from the signal (or the broker's shutdown call) to the end of the broker's shutdown. */
    void serverStopped(long began, long ended) {
        stopBeganNanos = began;
        stopEndedNanos = ended;
    }

    /** From the signal (or the broker's shutdown call) to the end of the broker's shutdown; 0 until it ended. */
    long wholeStop() {
        return stopEndedNanos == 0 ? 0 : stopEndedNanos - stopBeganNanos;
    }

    /** What the broker stopped after the log manager: 0 until its shutdown ended. */
    long afterLogManager() {
        return stopEndedNanos == 0 ? 0 : stopEndedNanos - endedNanos;
    }

    void expectLogs(int logs) {
        expectedLogs = logs;
    }

    void end(long nanos) {
        endedNanos = nanos;
    }

    // ---- read by the lines, the progress reporter and the JFR event ----

    long began() {
        return beganNanos;
    }

    long beganMillis() {
        return beganMillis;
    }

    long ended() {
        return endedNanos;
    }

    /** When the JVM's shutdown began (its shutdown hooks started), or 0 when the stop did not come from one. */
    long signal() {
        return signalNanos;
    }

    int expectedLogs() {
        return expectedLogs;
    }

    long nanos(Phase p) {
        return nanos.get(p.ordinal());
    }

    long count(Phase p) {
        return counts.get(p.ordinal());
    }

    Map<String, AtomicLongArray> perDir() {
        return dirNanos;
    }

    int logsIn(String logDir) {
        AtomicInteger n = dirLogs.get(logDir);
        return n == null ? 0 : n.get();
    }

    Map<String, AtomicLong> perLog() {
        return logNanos;
    }

    Map<String, Boolean> previousStopPerDir() {
        return dirClean;
    }

    int cleanDirs() {
        return cleanDirs.get();
    }

    int uncleanDirs() {
        return uncleanDirs.get();
    }
}
