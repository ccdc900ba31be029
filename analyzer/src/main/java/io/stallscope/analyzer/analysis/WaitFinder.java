package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.model.LockEvent;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.ThreadInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Finds lock waits: recorded lock events first, then runs of samples parked at a lock site. */
public final class WaitFinder {
    private final Recording rec;
    private final StackClassifier classifier;
    private final long[] intervals;

    public WaitFinder(Recording rec, StackClassifier classifier, long[] intervals) {
        this.rec = rec;
        this.classifier = classifier;
        this.intervals = intervals;
    }

    public List<Wait> find() {
        List<Wait> waits = new ArrayList<>();
        Map<Integer, List<Wait>> recordedByThread = new HashMap<>();
        for (LockEvent e : rec.locks) {
            Wait w = fromEvent(e);
            if (w == null) continue;
            waits.add(w);
            recordedByThread.computeIfAbsent(w.thread, k -> new ArrayList<>()).add(w);
        }
        recordedByThread.values().forEach(l -> l.sort(Comparator.comparingLong(w -> w.start)));
        int recordedCount = waits.size();
        for (ThreadInfo t : rec.threads) {
            fromSamples(t, recordedByThread.getOrDefault(t.id(), List.of()), waits);
        }
        // Sampled waits at a site where events recorded the lock itself (its class and address) join that lock.
        Map<String, Wait> recordedAtSite = new HashMap<>();
        for (int i = 0; i < recordedCount; i++) {
            Wait w = waits.get(i);
            recordedAtSite.putIfAbsent(w.file + ":" + w.lockType + ":" + w.siteLabel, w);
        }
        for (int i = recordedCount; i < waits.size(); i++) {
            Wait w = waits.get(i);
            Wait same = recordedAtSite.get(w.file + ":" + w.lockType + ":" + w.siteLabel);
            if (same != null) {
                w.lockKey = same.lockKey;
                w.lockLabel = same.lockLabel;
            }
        }
        return waits;
    }

    private Wait fromEvent(LockEvent e) {
        if (e.thread() < 0) return null;
        int file = rec.threads.get(e.thread()).file();
        int site;
        String type;
        if (e.kind() == LockEvent.Kind.MONITOR) {
            site = classifier.siteOfRecordedWait(e.stack());
            type = "monitor";
        } else {
            // A park is lock contention only under Lock.lock/AQS.acquire; queue polls and condition waits are idle.
            LockWaitSite s = classifier.lockWait(e.stack());
            if (s == null) return null;
            site = s.siteFrame();
            type = s.lockType();
        }
        int[] frames = rec.stacks.frames(e.stack());
        String siteMethod = site >= 0 && site < frames.length ? rec.frames.name(frames[site]) : "?";
        String siteLabel = site >= 0 && site < frames.length ? rec.frames.label(frames[site]) : "?";
        String cls = e.lockClass() == null ? type : e.lockClass();
        String key;
        String label;
        if (e.address() != 0) {
            key = file + ":" + cls + "@" + Long.toHexString(e.address());
            label = cls + "@0x" + Long.toHexString(e.address()) + " (" + type + ", taken in " + siteMethod + ")";
        } else {
            key = file + ":" + cls + "@" + siteMethod;
            label = cls + " (" + type + ", taken in " + siteMethod + ")";
        }
        return new Wait(file, e.thread(), e.start(), e.end(), key, label, type, siteMethod, siteLabel, e.stack(),
                true, e.previousOwner());
    }

    private void fromSamples(ThreadInfo t, List<Wait> recorded, List<Wait> out) {
        Samples.Lane lane = rec.samples.lane(t.id());
        long interval = intervals[t.file()];
        Wait cur = null;
        int r = 0;
        for (int i = 0; i < lane.size(); i++) {
            LockWaitSite s = classifier.lockWait(lane.stack(i));
            long time = lane.time(i);
            if (s == null) {
                cur = null;
                continue;
            }
            long end = time + lane.weight(i) * interval;
            // A sample inside a recorded wait of this thread adds nothing: the event is exact.
            while (r < recorded.size() && recorded.get(r).end < time) r++;
            if (r < recorded.size() && recorded.get(r).start <= end && recorded.get(r).end >= time) {
                cur = null;
                continue;
            }
            int[] frames = rec.stacks.frames(lane.stack(i));
            String siteMethod = rec.frames.name(frames[s.siteFrame()]);
            String siteLabel = rec.frames.label(frames[s.siteFrame()]);
            String key = t.file() + ":" + s.lockType() + "@" + siteLabel;
            if (cur != null && cur.lockKey.equals(key) && time <= cur.end + interval + interval / 2) {
                cur.end = Math.max(cur.end, end);
                continue;
            }
            cur = new Wait(t.file(), t.id(), time, end, key, s.lockType() + " taken at " + siteLabel, s.lockType(),
                    siteMethod, siteLabel, lane.stack(i), false, -1);
            out.add(cur);
        }
    }

    /** The sampling period of each file: from its settings, else the median gap between a thread's samples. */
    public static long[] intervals(Recording rec) {
        long[] result = new long[rec.files.size()];
        for (SourceFile f : rec.files) {
            if (f.sampleIntervalNanos > 0) {
                result[f.index] = f.sampleIntervalNanos;
                continue;
            }
            // async-profiler leaves the interval 0 when it is the default: 10 ms for cpu, 50 ms for wall.
            if (f.profilerEvent != null && f.producers.contains("async-profiler")) {
                long dflt = f.profilerEvent.contains("wall") ? 50_000_000L
                        : f.profilerEvent.contains("cpu") || f.profilerEvent.contains("itimer") ? 10_000_000L : 0;
                if (dflt > 0) {
                    result[f.index] = f.sampleIntervalNanos = dflt;
                    continue;
                }
            }
            List<Long> gaps = new ArrayList<>();
            for (ThreadInfo t : rec.threads) {
                if (t.file() != f.index) continue;
                Samples.Lane l = rec.samples.lane(t.id());
                for (int i = 1; i < l.size() && gaps.size() < 200_000; i++) {
                    long g = l.time(i) - l.time(i - 1);
                    if (g > 0) gaps.add(g);
                }
            }
            long median = 20_000_000L;
            if (!gaps.isEmpty()) {
                gaps.sort(null);
                median = gaps.get(gaps.size() / 2);
            }
            result[f.index] = Math.max(1_000_000L, Math.min(median, 1_000_000_000L));
            f.sampleIntervalNanos = result[f.index];
        }
        return result;
    }
}
