package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.model.Span;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Names the Kafka logs a lock guards, from the agent's spans. Kafka appends to, rolls and flushes the active
 * segment of a log under that log's lock, and the agent's ops there (records_append is FileRecords.append)
 * carry the topic-partition; so when the thread that held a lock while another waited for it was, during that
 * wait, inside an op on one topic-partition, the lock is that partition's log lock. Only locks taken in Kafka's
 * log classes count: a holder inside an append also holds other locks (a group's lock while it appends the
 * offsets, the JDK's own while it loads a class), and those are no log's. A wait whose holder is in no such op
 * names nothing: the partition is never guessed.
 *
 * <p>Input is narrow on purpose: spans (thread, start, end, topic-partition) and, per wait, the lock key, the
 * method that took the lock, the holder's thread and the wait's interval.
 */
public final class LogLockPartitions {
    /** The spans of one thread that name a topic-partition, by start, with the running maximum of their ends. */
    private record ThreadSpans(long[] start, long[] end, long[] maxEnd, String[] log) {
    }

    private final Map<Integer, ThreadSpans> byThread = new HashMap<>();

    public LogLockPartitions(Collection<Span> spans) {
        Map<Integer, List<Span>> lists = new HashMap<>();
        for (Span s : spans) {
            if (s.topicPartition() != null && s.partition() >= 0) lists.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(s);
        }
        lists.forEach((thread, l) -> {
            l.sort(Comparator.comparingLong(Span::start).thenComparingLong(Span::end));
            int n = l.size();
            long[] start = new long[n];
            long[] end = new long[n];
            long[] maxEnd = new long[n];
            String[] log = new String[n];
            for (int i = 0; i < n; i++) {
                Span s = l.get(i);
                start[i] = s.start();
                end[i] = s.end();
                maxEnd[i] = i == 0 ? s.end() : Math.max(maxEnd[i - 1], s.end());
                log[i] = s.topicPartition().intern();
            }
            byThread.put(thread, new ThreadSpans(start, end, maxEnd, log));
        });
    }

    /**
     * The topic-partition {@code holder} worked on while a thread waited over [start, end] for the lock it
     * held: of its ops overlapping the wait, the one that ended last (nearest the release, which hands the lock
     * to the waiter); null when no op of the holder overlaps the wait.
     */
    public String of(int holder, long start, long end) {
        ThreadSpans t = byThread.get(holder);
        if (t == null) return null;
        int i = lastStartingBy(t.start, end);
        String best = null;
        long bestEnd = Long.MIN_VALUE;
        // Back while an earlier span could still reach into the wait (maxEnd covers spans nested in long ones).
        for (; i >= 0 && t.maxEnd[i] >= start; i--) {
            if (t.end[i] < start) continue;
            if (t.end[i] > bestEnd) {
                bestEnd = t.end[i];
                best = t.log[i];
            }
        }
        return best;
    }

    private static int lastStartingBy(long[] starts, long time) {
        int lo = 0;
        int hi = starts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (starts[mid] <= time) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Where Kafka takes a log's lock: UnifiedLog (3.0 on, Scala then Java), Log (2.8), LocalLog (3.x). */
    private static final java.util.regex.Pattern LOG_CLASS = java.util.regex.Pattern.compile(
            "(kafka\\.log|org\\.apache\\.kafka\\.storage\\.internals\\.log)\\.(UnifiedLog|Log|LocalLog)\\$?");

    /** Whether {@code siteMethod} ("kafka.log.UnifiedLog.append") is a method of one of Kafka's log classes. */
    public static boolean isLogMethod(String siteMethod) {
        int dot = siteMethod.lastIndexOf('.');
        return dot > 0 && LOG_CLASS.matcher(siteMethod.substring(0, dot)).matches();
    }

    /** A tally for one unit of the analysis; tallies are merged in unit order. */
    public Tally tally() {
        return new Tally(this);
    }

    /** A log a lock guards, with the waits (and their time) whose holder was in an op on it. */
    public record Share(String log, int waits, long nanos) {
    }

    /** Per lock key, per topic-partition: the waits its holder's ops name. */
    public static final class Tally {
        private final LogLockPartitions index;
        private final Map<String, Map<String, long[]>> byLock = new LinkedHashMap<>();

        private Tally(LogLockPartitions index) {
            this.index = index;
        }

        /** A wait on {@code lockKey}, taken in {@code siteMethod}, over [start, end] while {@code holder} held it. */
        public void add(String lockKey, String siteMethod, int holder, long start, long end) {
            if (index.byThread.isEmpty() || !isLogMethod(siteMethod)) return;
            String log = index.of(holder, start, end);
            if (log == null) return;
            long[] c = byLock.computeIfAbsent(lockKey, k -> new HashMap<>()).computeIfAbsent(log, k -> new long[2]);
            c[0]++;
            c[1] += Math.max(0, end - start);
        }

        public void merge(Tally o) {
            o.byLock.forEach((lock, logs) -> {
                Map<String, long[]> mine = byLock.computeIfAbsent(lock, k -> new HashMap<>());
                logs.forEach((log, c) -> {
                    long[] m = mine.computeIfAbsent(log, k -> new long[2]);
                    m[0] += c[0];
                    m[1] += c[1];
                });
            });
        }

        /** The logs of {@code lockKey}, most waits first (then by name); empty when no holder's op named one. */
        public List<Share> of(String lockKey) {
            List<Share> l = new ArrayList<>();
            byLock.getOrDefault(lockKey, Map.of()).forEach((log, c) -> l.add(new Share(log, (int) c[0], c[1])));
            l.sort(Comparator.comparingInt(Share::waits).reversed().thenComparing(Share::log));
            return l;
        }
    }
}
