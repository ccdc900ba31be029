package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Span;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A request handler's remote calls in runs: calls of one handler on one partition, each beginning within
 * {@link #GAP_NANOS} of the one before it, nested calls with the call around them ({@link RemoteCallTimes#parents}).
 * The agent does not time the lookup that makes them (Kafka's findOffsetByTimestamp), so a run stands for it: its
 * blocked time is the calls' own, recorded, never the gaps between them.
 */
final class HandlerRemoteRuns {
    /** Calls further apart than this are told apart: the reading of a fetched segment between two calls is untimed. */
    static final long GAP_NANOS = 50_000_000L;

    private HandlerRemoteRuns() {
    }

    /** One handler's calls on one partition ({@code partition} null: none known), the outermost ones in {@code top}. */
    record Run(int thread, String partition, List<Span> calls, List<Span> top, long start, long end) {
        /** The time the handler spent inside the calls: the outermost ones' union. */
        long blockedNanos() {
            long sum = 0;
            long reached = Long.MIN_VALUE;
            for (Span s : top) {
                long from = Math.max(s.start(), reached);
                if (s.end() > from) sum += s.end() - from;
                reached = Math.max(reached, s.end());
            }
            return sum;
        }
    }

    /** The runs of {@code calls} (remote calls on request handlers), the earliest first. */
    static List<Run> of(List<Span> calls) {
        Map<Integer, List<Span>> byThread = new HashMap<>();
        for (Span s : calls) byThread.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(s);
        List<Run> out = new ArrayList<>();
        byThread.forEach((thread, spans) -> {
            Map<Span, Span> parents = RemoteCallTimes.parents(spans);
            Map<Span, List<Span>> inside = new IdentityHashMap<>();
            List<Span> tops = new ArrayList<>();
            for (Span s : RemoteCallTimes.byStart(spans)) {
                Span root = s;
                while (parents.containsKey(root)) root = parents.get(root);
                if (root == s) tops.add(s);
                else inside.computeIfAbsent(root, k -> new ArrayList<>()).add(s);
            }
            List<Span> top = new ArrayList<>();
            for (Span s : tops) {
                Span last = top.isEmpty() ? null : top.get(top.size() - 1);
                if (last != null && (!Objects.equals(last.topicPartition(), s.topicPartition()) || s.start() - end(top) > GAP_NANOS)) {
                    out.add(run(thread, top, inside));
                    top = new ArrayList<>();
                }
                top.add(s);
            }
            if (!top.isEmpty()) out.add(run(thread, top, inside));
        });
        out.sort(Comparator.comparingLong(Run::start).thenComparingInt(Run::thread));
        return out;
    }

    private static Run run(int thread, List<Span> top, Map<Span, List<Span>> inside) {
        List<Span> calls = new ArrayList<>();
        for (Span t : top) {
            calls.add(t);
            calls.addAll(inside.getOrDefault(t, List.of()));
        }
        return new Run(thread, top.get(0).topicPartition(), List.copyOf(calls), List.copyOf(top), top.get(0).start(), end(top));
    }

    private static long end(List<Span> top) {
        return top.stream().mapToLong(Span::end).max().getAsLong();
    }
}
