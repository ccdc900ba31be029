package io.stallscope.agent.stopstart;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;

/** The n partitions that took longest, slowest first: one pass with a heap of n, whatever the number of logs. */
final class SlowestLogs {
    private SlowestLogs() {
    }

    static List<Map.Entry<String, Long>> of(Map<String, AtomicLong> perLog, int n) {
        Comparator<Map.Entry<String, Long>> byTime = Comparator.comparingLong(Map.Entry::getValue);
        PriorityQueue<Map.Entry<String, Long>> heap = new PriorityQueue<>(n + 1, byTime);
        for (Map.Entry<String, AtomicLong> e : perLog.entrySet()) {
            long t = e.getValue().get();
            if (heap.size() < n) {
                heap.add(Map.entry(e.getKey(), t));
            } else if (t > heap.peek().getValue()) {
                heap.poll();
                heap.add(Map.entry(e.getKey(), t));
            }
        }
        List<Map.Entry<String, Long>> out = new ArrayList<>(heap);
        out.sort(byTime.reversed());
        return out;
    }
}
