package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Findings anchored on the agent's spans: an op during which others waited for a lock its thread held
 * ({@code stalled-op-under-lock}), and a long op nobody waited on ({@code slow-op}: the op itself still stalled
 * its request or its partition).
 */
final class SpanFindings {
    /** An agent op at least this long is worth a line even when nobody waited on it. */
    static final long SLOW_OP_NANOS = 100_000_000L;
    /** Findings of each kind (so the other kinds still make the top ten); the rest are summed up, and all in --json. */
    static final int MAX_PER_KIND = 3;

    private final Analysis a;
    private final Recording rec;
    private final List<SpanStalls.Stall> stalls;

    SpanFindings(Analysis a, List<SpanStalls.Stall> stalls) {
        this.a = a;
        this.rec = a.recording();
        this.stalls = stalls;
    }

    void add(List<Finding> out) {
        Set<Span> anchored = Collections.newSetFromMap(new IdentityHashMap<>());
        List<SpanStalls.Stall> stalls = this.stalls.stream().filter(s -> !KafkaThreads.isTool(rec.threadName(s.span.thread()))).toList();
        List<Finding> stalledOps = new ArrayList<>();
        for (SpanStalls.Stall s : stalls.subList(0, Math.min(stalls.size(), MAX_PER_KIND))) stalledOps.add(stalled(s));
        if (stalls.size() > MAX_PER_KIND) {
            // The first finding says how much more of the same there is.
            List<SpanStalls.Stall> rest = stalls.subList(MAX_PER_KIND, stalls.size());
            Map<String, Integer> ops = new java.util.TreeMap<>();
            long nanos = 0;
            for (SpanStalls.Stall s : rest) {
                ops.merge(s.span.opName(), 1, Integer::sum);
                nanos += s.waitNanos;
            }
            Finding f = stalledOps.get(0);
            List<String> evidence = new ArrayList<>(f.evidence());
            evidence.add(String.format(Locale.ROOT, "%s made others wait for their thread's lock, %s in total: %s",
                    Counts.of(rest.size(), "more agent op"), Durations.text(nanos), ops.entrySet().stream()
                            .map(e -> e.getKey() + " x" + e.getValue()).collect(java.util.stream.Collectors.joining(", "))));
            stalledOps.set(0, new Finding(f.kind(), f.summary(), f.threads(), evidence, f.weightNanos(), f.details(), f.atNanos()));
        }
        out.addAll(stalledOps);
        stalls.forEach(s -> anchored.add(s.span));
        List<Span> slow = new ArrayList<>();
        for (Span s : rec.spans) {
            if (s.duration() >= SLOW_OP_NANOS && !anchored.contains(s) && !KafkaThreads.isTool(rec.threadName(s.thread())) && s.end() >= a.options().from()
                    && s.start() <= a.options().to()) slow.add(s);
        }
        slow.sort(Comparator.comparingLong(Span::duration).reversed().thenComparingLong(Span::start));
        for (Span s : slow.subList(0, Math.min(slow.size(), MAX_PER_KIND))) out.add(slowOp(s));
    }

    private Finding stalled(SpanStalls.Stall st) {
        Span s = st.span;
        String thread = rec.threadName(s.thread());
        List<Map.Entry<Integer, long[]>> waiters = new ArrayList<>(st.waiters.entrySet());
        waiters.sort(Comparator.comparingLong((Map.Entry<Integer, long[]> e) -> e.getValue()[0]).reversed()
                .thenComparing(Map.Entry::getKey));
        boolean handlers = waiters.stream().allMatch(e -> KafkaThreads.role(rec.threadName(e.getKey())).equals(KafkaThreads.REQUEST_HANDLER));
        Holder h = st.telling;
        Sampled sampled = sampledDuring(s);
        // The thread's own samples inside the op say best where it sat; else the holder attribution's.
        IoOp sat = sampled != null && sampled.op.storage() ? sampled.op : h != null ? h.op() : IoOp.NONE;
        String in = sat.storage() ? "; it sat in " + sat.syscall + "(2)" : "";
        String each = Durations.list(waiters.stream().limit(8).mapToLong(e -> e.getValue()[0]).toArray())
                + (waiters.size() > 8 ? String.format(Locale.ROOT, " (first 8 of %,d)", waiters.size()) : "");
        int[] by = new int[3];
        waiters.forEach(e -> by[howIndex(e.getValue()[2])]++);
        List<String> hows = new ArrayList<>();
        for (int i = 0; i < by.length; i++) {
            if (by[i] > 0) hows.add(by[i] + " " + HOW[i]);
        }
        String summary = String.format(Locale.ROOT, "%s %s on %s%s while %s waited for its lock %s (%s in total, longest %s; per waiter %s; %s)%s",
                s.opName(), Durations.text(s.duration()), thread, forPartition(s), Counts.of(waiters.size(), handlers ? "handler" : "thread"), st.mainLock(),
                Durations.text(st.waitNanos), Durations.text(st.longestWait), each, String.join(", ", hows), in);
        List<String> threads = new ArrayList<>();
        threads.add(thread);
        waiters.forEach(e -> threads.add(rec.threadName(e.getKey())));
        List<String> evidence = new ArrayList<>();
        evidence.add(spanLine(s));
        st.locks.entrySet().stream().sorted(Comparator.comparingLong((Map.Entry<String, long[]> e) -> e.getValue()[0]).reversed())
                .limit(3).forEach(e -> evidence.add(String.format("lock %s taken at %s: %s of waiting while the op ran",
                        e.getKey(), st.sites.get(e.getKey()), Durations.text(e.getValue()[0]))));
        if (h != null) {
            String how = h.how().equals(Holder.RECORDED) ? "recorded: jdk.JavaMonitorEnter previousOwner"
                    : String.format(Locale.ROOT, "inferred from samples inside the locked method, confidence %.2f", h.confidence());
            evidence.add(String.format("holder %s (%s)%s: %s", thread, how,
                    h.op().storage() ? " in " + h.op().syscall + "(2)" : "", a.frames(h.stack(), 10)));
        }
        if (sampled != null) evidence.add(sampled.text);
        for (Map.Entry<Integer, long[]> e : waiters.subList(0, Math.min(waiters.size(), 8))) {
            long[] v = e.getValue();
            evidence.add(String.format(Locale.ROOT, "waiter %s waited %s over %s during the op (%s)", rec.threadName(e.getKey()),
                    Durations.text(v[0]), Counts.of(v[1], "wait"), HOW_EVIDENCE[howIndex(v[2])]));
        }
        return new Finding(Finding.STALLED_OP_UNDER_LOCK, summary, threads, evidence, st.waitNanos).at(s.start());
    }

    /** How a waiter was tied to the stalled thread, the surest first (docs/analyzer.md explains each). */
    private static final String[] HOW = {"recorded (previousOwner)", "inferred from the recorded convoy", "inferred from samples"};
    private static final String[] HOW_EVIDENCE = {
        "recorded: its jdk.JavaMonitorEnter previousOwner is the holder",
        "inferred from the recorded convoy: it queued on the same monitor while the holder held it",
        "inferred from samples inside the locked method"};

    /** A waiter counted both ways is reported by its surest tie. */
    private static int howIndex(long how) {
        return (how & SpanStalls.Stall.RECORDED) != 0 ? 0 : (how & SpanStalls.Stall.CONVOY) != 0 ? 1 : 2;
    }

    private Finding slowOp(Span s) {
        String thread = rec.threadName(s.thread());
        String summary = String.format(Locale.ROOT, "%s %s on %s%s%s; no thread waited on it", s.opName(), Durations.text(s.duration()),
                thread, forPartition(s), s.failed() ? " (failed)" : "");
        List<String> evidence = new ArrayList<>();
        evidence.add(spanLine(s));
        Sampled sampled = sampledDuring(s);
        if (sampled != null) evidence.add(sampled.text);
        return new Finding(Finding.SLOW_OP, summary, List.of(thread), evidence, s.duration()).at(s.start());
    }

    private static String forPartition(Span s) {
        String tp = s.topicPartition();
        return tp == null ? "" : " for " + tp;
    }

    /** "span stallscope.RecordsAppend: records_append on T at +12.345 s for 480.0 ms, orders-7, 524288 bytes, path P". */
    private String spanLine(Span s) {
        StringBuilder sb = new StringBuilder();
        sb.append("span ").append(s.type()).append(": ").append(s.opName()).append(" on ").append(rec.threadName(s.thread()))
                .append(String.format(Locale.ROOT, " at +%.3f s for %s", (s.start() - rec.startNanos()) / 1e9, Durations.text(s.duration())));
        if (s.topicPartition() != null) sb.append(", ").append(s.topicPartition());
        if (s.bytes() >= 0) sb.append(", ").append(s.bytes()).append(" bytes");
        if (s.path() != null && !s.path().isEmpty()) sb.append(", path ").append(s.path());
        if (s.threadRole() != null) sb.append(", role ").append(s.threadRole());
        if (s.failed()) sb.append(", failed");
        return sb.toString();
    }

    /** What the span's thread was sampled doing during the op: its most sampled stack, preferring a storage call. */
    private record Sampled(IoOp op, String text) {
    }

    private Sampled sampledDuring(Span s) {
        Map<Integer, Long> stacks = new HashMap<>();
        int n = 0;
        for (Samples.Cursor c = rec.samples.lane(s.thread()).cursorAt(s.start()); c.next() && c.time() <= s.end(); ) {
            stacks.merge(c.stack(), (long) c.weight(), Long::sum);
            n += c.weight();
        }
        if (stacks.isEmpty()) return null;
        Map.Entry<Integer, Long> best = stacks.entrySet().stream().max(Comparator
                .comparing((Map.Entry<Integer, Long> e) -> a.classifier().io(e.getKey()).storage())
                .thenComparing(Map.Entry::getValue).thenComparing(Map.Entry::getKey, Comparator.reverseOrder())).get();
        IoOp op = a.classifier().io(best.getKey());
        return new Sampled(op, String.format(Locale.ROOT, "%s sampled %s during the op%s, e.g. %s", rec.threadName(s.thread()), Counts.of(n, "time"),
                op.storage() ? ", " + best.getValue() + " in " + op.syscall + "(2)" : "",
                a.frames(best.getKey(), 10)));
    }

}
