package io.stallscope.agent.stopstart;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The lines a finished stop or start writes to the broker's log, and the progress line of a slow stop. Phase
 * times are summed over the threads that did the work (one per log dir by default, more with
 * num.recovery.threads.per.data.dir), so with one thread they add up to the log manager's own time.
 */
final class BreakdownLines {
    static final int SLOWEST = 10;
    private static final int MAX_DIRS_LISTED = 20;

    private BreakdownLines() {
    }

    static List<String> of(Breakdown b) {
        return "stop".equals(b.kind()) ? stop(b) : start(b);
    }

    static List<String> stop(Breakdown b) {
        List<String> lines = new ArrayList<>();
        long logManager = b.ended() - b.began();
        long signal = b.signal();
        long total = signal != 0 && signal < b.began() ? b.ended() - signal : logManager;
        long flush = b.nanos(Phase.FLUSH);
        long close = b.nanos(Phase.LOG_CLOSE);
        long checkpoints = b.nanos(Phase.CHECKPOINT);
        StringBuilder s = new StringBuilder("stop breakdown: ").append(sec(total))
            .append(signal != 0 && signal < b.began()
                ? " from the start of shutdown to the end of the log manager's (before the log manager "
                    + sec(b.began() - signal) + ", log manager " + sec(logManager) + ")"
                : " in the log manager's shutdown (no JVM shutdown before it)")
            .append("; flushing logs ").append(sec(flush))
            .append(", closing logs ").append(sec(close))
            .append(" (closing segments ").append(sec(b.nanos(Phase.SEGMENT_CLOSE)))
            .append(": index trim ").append(sec(b.nanos(Phase.INDEX_TRIM)))
            .append(", time-index last entry ").append(sec(b.nanos(Phase.TIME_INDEX_LAST_ENTRY)))
            .append(", file truncation ").append(sec(b.nanos(Phase.RECORDS_TRIM)))
            .append("), checkpoints ").append(sec(checkpoints));
        long rest = logManager - flush - close - checkpoints;
        if (rest >= 0) {
            s.append(", rest of the log manager ").append(sec(rest));
        } else {
            s.append(" (phases summed over threads closing in parallel)");
        }
        s.append("; ").append(b.count(Phase.LOG_CLOSE)).append(" logs, ")
            .append(b.count(Phase.SEGMENT_CLOSE)).append(" segments, ")
            .append(b.count(Phase.INDEX_TRIM)).append(" index files trimmed, ")
            .append(b.count(Phase.FLUSH)).append(" logs flushed (").append(b.count(Phase.SEGMENT_FLUSH))
            .append(" segments of ").append(mib(b.bytesFlushed())).append(")");
        lines.add(s.toString());
        lines.add("stop breakdown per log dir: " + perDir(b));
        lines.add("stop breakdown, slowest logs (flush and close): " + slowest(b));
        return lines;
    }

    /** "stop breakdown, end: 2.1 s from the start of shutdown to the end of the broker's; after the log manager 0.4 s ...". */
    static String end(Breakdown b) {
        long whole = b.wholeStop();
        long logManagerPart = whole - b.afterLogManager();
        return "stop breakdown, end: " + sec(whole) + (b.signal() != 0 && b.signal() < b.began()
                ? " from the start of shutdown" : " from the broker's shutdown call")
            + " to the end of the broker's shutdown; up to the end of the log manager's " + sec(logManagerPart)
            + ", after it " + sec(b.afterLogManager())
            + " (controller, raft or ZooKeeper client, what Kafka stops last); the JVM exits next";
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    static List<String> start(Breakdown b) {
        List<String> lines = new ArrayList<>();
        long loading = b.ended() - b.began();
        StringBuilder s = new StringBuilder("start breakdown: loading logs ").append(sec(loading))
            .append("; previous stop ").append(previousStop(b))
            .append("; ").append(b.count(Phase.LOAD_LOG)).append(" logs loaded in ").append(sec(b.nanos(Phase.LOAD_LOG)))
            .append(", ").append(b.count(Phase.SEGMENT_RECOVER)).append(" segments recovered in ")
            .append(sec(b.nanos(Phase.SEGMENT_RECOVER)));
        if (b.nanos(Phase.LOAD_LOG) > loading) {
            s.append(" (summed over threads loading in parallel)");
        }
        lines.add(s.toString());
        lines.add("start breakdown per log dir: " + perDir(b));
        lines.add("start breakdown, slowest logs (load and recovery): " + slowest(b));
        return lines;
    }

    /** "stop in progress for 30 s: 1200 of 2000 logs closed, 800 left; closing now t-3 in /data/a for 12.000 s". */
    static String progress(Breakdown b, long now) {
        long closed = b.count(Phase.LOG_CLOSE);
        int expected = b.expectedLogs();
        long from = b.signal() != 0 && b.signal() < b.began() ? b.signal() : b.began();
        StringBuilder s = new StringBuilder("stop in progress for ").append(sec(now - from)).append(": ")
            .append(closed).append(expected >= 0 ? " of " + expected : "").append(" logs closed");
        if (expected >= 0) {
            s.append(", ").append(Math.max(0, expected - closed)).append(" left");
        }
        Breakdown.Closing c = b.longestClosing();
        s.append(c == null ? "; none closing now (flushing " + b.count(Phase.FLUSH) + " logs done, or checkpoints)"
            : "; closing now " + c.log + " for " + sec(now - c.since));
        return s.toString();
    }

    static String perDir(Breakdown b) {
        return "stop".equals(b.kind())
            ? perDir(b, new Phase[] {Phase.FLUSH, Phase.LOG_CLOSE, Phase.SEGMENT_CLOSE, Phase.CHECKPOINT},
                new String[] {"flushing", "closing", "segments", "checkpoints"})
            : perDir(b, new Phase[] {Phase.LOAD_LOG, Phase.SEGMENT_RECOVER}, new String[] {"loading", "recovering"});
    }

    static String previousStop(Breakdown b) {
        int clean = b.cleanDirs();
        int unclean = b.uncleanDirs();
        if (clean + unclean == 0) {
            return "unknown (no logs loaded)";
        }
        if (unclean == 0) {
            return "clean";
        }
        List<String> dirs = new ArrayList<>();
        for (Map.Entry<String, Boolean> e : new TreeMap<>(b.previousStopPerDir()).entrySet()) {
            if (!e.getValue()) {
                dirs.add(e.getKey());
            }
        }
        return "NOT clean in " + unclean + " of " + (clean + unclean) + " log dirs " + dirs + " (logs recovered)";
    }

    private static String perDir(Breakdown b, Phase[] phases, String[] labels) {
        Map<String, AtomicLongArray> dirs = new TreeMap<>(b.perDir());
        if (dirs.isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, AtomicLongArray> e : dirs.entrySet()) {
            if (parts.size() == MAX_DIRS_LISTED) {
                parts.add("and " + (dirs.size() - MAX_DIRS_LISTED) + " more");
                break;
            }
            StringBuilder p = new StringBuilder(e.getKey()).append(": ").append(b.logsIn(e.getKey())).append(" logs");
            for (int i = 0; i < phases.length; i++) {
                p.append(", ").append(labels[i]).append(' ').append(sec(e.getValue().get(phases[i].ordinal())));
            }
            parts.add(p.toString());
        }
        return String.join("; ", parts);
    }

    static String slowest(Breakdown b) {
        List<Map.Entry<String, Long>> top = SlowestLogs.of(b.perLog(), SLOWEST);
        if (top.isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, Long> e : top) {
            parts.add(e.getKey() + " " + sec(e.getValue()));
        }
        return String.join(", ", parts);
    }

    static String sec(long nanos) {
        return String.format(Locale.ROOT, "%.3f s", nanos / 1e9);
    }
}
