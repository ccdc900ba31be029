package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.analysis.waits.Holder;
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
    /** Spans another finding tells with the rest of their stall (a queued remote read): no slow-op of their own. */
    private final Set<Span> told;

    SpanFindings(Analysis a, List<SpanStalls.Stall> stalls, Set<Span> told) {
        this.a = a;
        this.rec = a.recording();
        this.stalls = stalls;
        this.told = told;
    }

    void add(List<Finding> out) {
        Set<Span> anchored = Collections.newSetFromMap(new IdentityHashMap<>());
        anchored.addAll(told);
        List<SpanStalls.Stall> stalls = this.stalls.stream().filter(s -> !KafkaThreads.isTool(rec.threadName(s.span.thread()))).toList();
        List<List<SpanStalls.Stall>> groups = nested(stalls);
        List<Finding> stalledOps = new ArrayList<>();
        for (List<SpanStalls.Stall> g : groups.subList(0, Math.min(groups.size(), MAX_PER_KIND))) stalledOps.add(stalled(g));
        if (groups.size() > MAX_PER_KIND) {
            // The first finding says how much more of the same there is.
            List<List<SpanStalls.Stall>> rest = groups.subList(MAX_PER_KIND, groups.size());
            Map<String, Integer> ops = new java.util.TreeMap<>();
            long nanos = 0;
            for (List<SpanStalls.Stall> g : rest) {
                ops.merge(g.get(0).span.opName(), 1, Integer::sum);
                nanos += g.get(0).waitNanos;
            }
            Finding f = stalledOps.get(0);
            List<String> evidence = new ArrayList<>(f.evidence());
            evidence.add(String.format(Locale.ROOT, "%s made others wait for their thread's lock, %s in total: %s",
                    Counts.of(rest.size(), "more agent op"), Durations.text(nanos), ops.entrySet().stream()
                            .map(e -> e.getKey() + " x" + e.getValue()).collect(java.util.stream.Collectors.joining(", "))));
            stalledOps.set(0, f.with(evidence));
        }
        out.addAll(stalledOps);
        stalls.forEach(s -> anchored.add(s.span));
        List<Span> slow = new ArrayList<>();
        for (Span s : rec.spans) {
            // a log_append's own time is its wait for the log's lock, told by the lock's finding; the ops inside it
            // that were slow have spans of their own
            if (SpanStalls.LOCK_WRAPPER_OP.equals(s.opName())) continue;
            if (s.duration() >= SLOW_OP_NANOS && !anchored.contains(s) && !KafkaThreads.isTool(rec.threadName(s.thread())) && s.end() >= a.options().from()
                    && s.start() <= a.options().to()) slow.add(s);
        }
        slow.sort(Comparator.comparingLong(Span::duration).reversed().thenComparingLong(Span::start));
        // Nested ops of one thread (log_roll > snapshot_take > snapshot_write) are one stall, one finding. Every slow
        // op on a background thread goes to the folded background line (it counts them all); of the rest, the longest few.
        List<List<Span>> slowGroups = new ArrayList<>();
        for (Span s : slow) {
            List<Span> into = null;
            for (List<Span> g : slowGroups) {
                if (g.get(0).thread() == s.thread() && (contains(g.get(0), s) || contains(s, g.get(0)))) {
                    into = g;
                    break;
                }
            }
            if (into != null) into.add(s);
            else slowGroups.add(new ArrayList<>(List.of(s)));
        }
        int shown = 0;
        for (List<Span> g : slowGroups) {
            boolean background = RequestPath.background(rec.threadName(g.get(0).thread()));
            if (background || shown < MAX_PER_KIND) out.add(slowOp(g));
            if (!background) shown++;
        }
    }

    /**
     * One stall, one finding: ops of one thread nested in each other (log_roll around snapshot_take around
     * snapshot_write) caused the same waits, so they are grouped, the one that caused most waiting first.
     */
    private static List<List<SpanStalls.Stall>> nested(List<SpanStalls.Stall> stalls) {
        List<List<SpanStalls.Stall>> groups = new ArrayList<>();
        for (SpanStalls.Stall s : stalls) {
            List<SpanStalls.Stall> into = null;
            for (List<SpanStalls.Stall> g : groups) {
                Span lead = g.get(0).span;
                if (lead.thread() == s.span.thread() && (contains(lead, s.span) || contains(s.span, lead))) {
                    into = g;
                    break;
                }
            }
            if (into != null) into.add(s);
            else groups.add(new ArrayList<>(List.of(s)));
        }
        return groups;
    }

    private static boolean contains(Span outer, Span inner) {
        return outer.start() <= inner.start() && inner.end() <= outer.end();
    }

    private Finding stalled(List<SpanStalls.Stall> group) {
        SpanStalls.Stall st = group.get(0);
        List<Span> ops = new ArrayList<>(group.stream().map(g -> g.span).toList());
        ops.sort(Comparator.comparingLong(Span::start).thenComparing(Comparator.comparingLong(Span::duration).reversed()));
        Span s = ops.get(0);
        Span innermost = ops.get(ops.size() - 1);
        String thread = rec.threadName(s.thread());
        List<Map.Entry<Integer, long[]>> waiters = new ArrayList<>(st.waiters.entrySet());
        waiters.sort(Comparator.comparingLong((Map.Entry<Integer, long[]> e) -> e.getValue()[0]).reversed()
                .thenComparing(Map.Entry::getKey));
        Holder h = st.telling;
        Sampled sampled = sampledDuring(s);
        Sampled inner = innermost == s ? sampled : sampledDuring(innermost);
        Sampled where = inner != null && inner.op.storage() ? inner : sampled;
        // The thread's own samples inside the op say best where it sat; else the holder attribution's.
        IoOp sat = where != null && where.op.storage() ? where.op : h != null ? h.op() : IoOp.NONE;
        String each = Durations.list(waiters.stream().limit(8).mapToLong(e -> e.getValue()[0]).toArray())
                + (waiters.size() > 8 ? String.format(Locale.ROOT, " (first 8 of %,d)", waiters.size()) : "");
        int[] by = new int[3];
        waiters.forEach(e -> by[howIndex(e.getValue()[2])]++);
        List<String> hows = new ArrayList<>();
        for (int i = 0; i < by.length; i++) {
            if (by[i] > 0) hows.add(by[i] + " " + HOW[i]);
        }
        String who = FindingDetector.whoWaited(waiters.stream().map(Map.Entry::getKey).toList(), rec);
        String lock = lockName(st.mainLock());
        String opChain = ops.stream().map(o -> o.opName() + " " + Durations.text(o.duration()))
                .collect(java.util.stream.Collectors.joining(" > ")) + forPartition(s);
        String then = sat.storage() ? ", then " + sat.syscall + "(2)" : "";
        String summary = String.format(Locale.ROOT, "%s waited %s for %s, held by %s in %s%s (longest %s; per waiter %s; %s)",
                who, Durations.text(st.waitNanos), lock, thread, opChain, then, Durations.text(st.longestWait), each, String.join(", ", hows));

        StallChain chain = new StallChain()
                .waited(String.format(Locale.ROOT, "%s, %s in total, on %s", who, Durations.text(st.waitNanos), lock), String.join(", ", hows));
        if (h != null) {
            chain.heldBy(thread, h.how().equals(Holder.RECORDED) ? "recorded: jdk.JavaMonitorEnter previousOwner"
                    : String.format(Locale.ROOT, "inferred from samples inside the locked method, confidence %.2f", h.confidence()));
        }
        chain.doing(opChain, "recorded: agent span" + (ops.size() > 1 ? "s" : ""));
        if (where != null && where.op.storage()) {
            chain.then(where.op.syscall + "(2)", "inferred: " + where.count + " of its samples during the op");
        } else if (h != null && h.op().storage()) {
            chain.then(h.op().syscall + "(2)", "inferred: the holder's samples or I/O events during the waits");
        }
        chain.behind(ops);

        List<String> threads = new ArrayList<>();
        threads.add(thread);
        waiters.forEach(e -> threads.add(rec.threadName(e.getKey())));
        List<String> evidence = new ArrayList<>(chain.lines());
        for (Span o : ops) evidence.add(spanLine(o));
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
        HarmMeter harm = new HarmMeter(rec);
        harm.addSpan(s); // a request handler inside a slow op is itself a stalled request
        for (long[] v : st.victims) harm.add((int) v[0], v[1], v[2], (int) v[3]);
        st.untimed.forEach((t, v) -> harm.addUntimed(t, v[0], (int) v[1]));
        Map<String, Object> details = new java.util.LinkedHashMap<>();
        details.put("chain", chain.links());
        details.put("holderThread", thread);
        details.put("opStartMs", Durations.ms(s.start() - rec.startNanos()));
        details.put("opEndMs", Durations.ms(s.end() - rec.startNanos()));
        return new Finding(Finding.STALLED_OP_UNDER_LOCK, summary, threads, evidence, st.waitNanos, details).at(s.start()).with(harm.measure());
    }

    /** "log orders-0's lock java.lang.Object@... (...)" when the lock is a log's (LogLockPartitions), else "its lock ...". */
    private String lockName(String label) {
        for (Contention c : a.contentions()) {
            if (c.label.equals(label) && !c.logs.isEmpty()) return "log " + c.logs.get(0).log() + "'s lock " + label;
        }
        return "its lock " + label;
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

    private Finding slowOp(List<Span> group) {
        List<Span> ops = new ArrayList<>(group);
        ops.sort(Comparator.comparingLong(Span::start).thenComparing(Comparator.comparingLong(Span::duration).reversed()));
        Span s = ops.get(0);
        HarmMeter harm = new HarmMeter(rec);
        harm.addSpan(s); // nobody waited on it, but on a request-path thread the op itself held a request
        String thread = rec.threadName(s.thread());
        String chain = ops.stream().map(o -> o.opName() + " " + Durations.text(o.duration())).collect(java.util.stream.Collectors.joining(" > "));
        String summary = String.format(Locale.ROOT, "%s on %s%s%s; no thread waited on it", chain,
                thread, forPartition(s), ops.stream().anyMatch(Span::failed) ? " (failed)" : "");
        List<String> evidence = new ArrayList<>();
        for (Span o : ops) evidence.add(spanLine(o));
        for (int i = ops.size() - 1; i >= 0; i--) {
            if (ops.get(i).behind() == null) continue;
            evidence.add("slow because " + StallChain.behindText(ops.get(i).opName(), ops.get(i).behind())
                    + " [recorded: the agent's behind fields]");
            break;
        }
        Sampled sampled = sampledDuring(ops.get(ops.size() - 1));
        if (sampled != null) evidence.add(sampled.text);
        return new Finding(Finding.SLOW_OP, summary, List.of(thread), evidence, s.duration()).at(s.start()).with(harm.measure());
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
    private record Sampled(IoOp op, String text, long count) {
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
                a.frames(best.getKey(), 10)), best.getValue());
    }

}
