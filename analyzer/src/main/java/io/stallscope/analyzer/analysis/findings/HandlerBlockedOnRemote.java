package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * {@code request-handler-blocked-on-remote-storage} (issue 55): a request handler inside the tiered-storage plugin's
 * calls. A fetch hands its remote read to the reader pool, but up to Kafka 3.9 a ListOffsets by timestamp that lands in
 * the remote tier looks the offset up on the handler itself: the remote index cache's load, the plugin's fetchIndex and
 * fetchLogSegment (KAFKA-15859). The handler serves no other request meanwhile. Kafka 4.0 made the lookup asynchronous
 * (KIP-1075). Told per run of calls ({@link HandlerRemoteRuns}): which handler, for how long, on which partition, and
 * which call took the time by its own time ({@link RemoteCallTimes}), all from the agent's spans, recorded. The calls a
 * finding tells are no {@code slow-op} of their own.
 */
final class HandlerBlockedOnRemote {
    /** The agent's default jfr.threshold: a recording made with a lower one lists no sub-millisecond calls here. */
    static final long MIN_BLOCKED_NANOS = 1_000_000L;
    /** Runs with a finding each (the longest first); the rest are summed in the first one's evidence. */
    static final int MAX_RUNS = 3;
    /** Calls listed one by one in the evidence. */
    static final int LISTED = 8;
    static final String WHY = "before Kafka 4.0 a ListOffsets by timestamp in the remote tier runs the plugin's calls on the"
            + " request handler (KAFKA-15859); Kafka 4.0 moved them off the handlers (KIP-1075)";
    /** The summary's last sentence: what makes a handler call the plugin, and the Kafka that stopped it. */
    static final String SO = "A ListOffsets by timestamp does this on a handler before Kafka 4.0 (KAFKA-15859); 4.0 moved it off the"
            + " handlers (KIP-1075)";
    static final String WHAT_HELPS = "what helps: Kafka 4.0 or later (KIP-1075); before that a faster remote tier, and fewer"
            + " index loads (remote_index_load is a miss of the remote index cache: remote.log.index.file.cache.total.size.bytes)";

    private final Analysis a;
    private final Recording rec;

    HandlerBlockedOnRemote(Analysis a) {
        this.a = a;
        this.rec = a.recording();
    }

    /** Adds the findings to {@code out}, and the calls they tell to {@code told}. */
    void add(List<Finding> out, Set<Span> told) {
        Options o = a.options();
        List<Span> calls = new ArrayList<>();
        for (Span s : rec.spans) {
            if (s.end() < o.from() || s.start() > o.to() || !RemoteOps.call(s) || !RemoteOps.onRequestHandler(s, rec)
                    || KafkaThreads.isTool(rec.threadName(s.thread()))) continue;
            calls.add(s);
        }
        if (calls.isEmpty()) return;
        List<HandlerRemoteRuns.Run> runs = new ArrayList<>(HandlerRemoteRuns.of(calls).stream()
                .filter(r -> r.blockedNanos() >= MIN_BLOCKED_NANOS).toList());
        if (runs.isEmpty()) return;
        runs.sort(Comparator.comparingLong(HandlerRemoteRuns.Run::blockedNanos).reversed().thenComparingLong(HandlerRemoteRuns.Run::start));
        List<Finding> mine = new ArrayList<>();
        for (HandlerRemoteRuns.Run r : runs.subList(0, Math.min(runs.size(), MAX_RUNS))) {
            mine.add(finding(r));
            told.addAll(r.calls());
        }
        if (runs.size() > MAX_RUNS) {
            List<HandlerRemoteRuns.Run> rest = runs.subList(MAX_RUNS, runs.size());
            Finding f = mine.get(0);
            List<String> evidence = new ArrayList<>(f.evidence());
            evidence.add(String.format(Locale.ROOT, "%s on %s: %s in remote storage calls in all", Counts.of(rest.size(), "more run"),
                    Counts.of(rest.stream().mapToInt(HandlerRemoteRuns.Run::thread).distinct().count(), "handler"),
                    Durations.text(rest.stream().mapToLong(HandlerRemoteRuns.Run::blockedNanos).sum())));
            mine.set(0, f.with(evidence));
        }
        out.addAll(mine);
    }

    private Finding finding(HandlerRemoteRuns.Run r) {
        String handler = rec.threadName(r.thread());
        String tp = r.partition() == null ? "an unknown partition" : r.partition();
        long blocked = r.blockedNanos();
        List<RemoteCallTimes.OpTime> ops = RemoteCallTimes.of(r.calls());
        RemoteCallTimes.OpTime most = ops.get(0);
        String which = String.format(Locale.ROOT, "%s in %s (%s, %s of its own)", most.selfNanos() * 2 > blocked ? "most of it" : "the largest part",
                most.op(), Counts.of(most.count(), "call"), Durations.text(most.selfNanos()));
        String summary = String.format(Locale.ROOT, "%s blocked %s in remote storage calls for %s: %s; %s. %s", handler,
                Durations.text(blocked), tp, calls(r), which, SO);

        List<String> evidence = new ArrayList<>();
        List<Span> listed = r.calls(); // each outermost call, then the calls inside it
        for (Span s : listed.subList(0, Math.min(listed.size(), LISTED))) {
            boolean inner = r.top().stream().noneMatch(t -> t == s);
            evidence.add(String.format(Locale.ROOT, "%s%s on %s at +%.3f s for %s, %s%s [recorded: %s]", inner ? "  inside: " : "call: ",
                    s.opName(), handler, seconds(s.start()), Durations.text(s.duration()), s.topicPartition() == null ? "no partition" : s.topicPartition(),
                    s.path() == null || s.path().isEmpty() ? "" : ", path " + s.path(), s.type()));
        }
        if (listed.size() > LISTED) evidence.add("... " + Counts.of(listed.size() - LISTED, "more call") + " (all in --json: spans)");
        evidence.add("own time by op (a call's time without the timed calls inside it): " + ops.stream().map(o -> o.op() + " "
                + Durations.text(o.selfNanos()) + " (" + Counts.of(o.count(), "call") + ")").collect(Collectors.joining(", ")));
        evidence.add("why on a request handler: " + WHY);
        evidence.add(WHAT_HELPS);

        HarmMeter harm = new HarmMeter(rec);
        r.top().forEach(harm::addSpan); // the handler itself is the stalled request
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("handlerThread", handler);
        details.put("topic", r.top().get(0).topic());
        details.put("partition", r.top().get(0).partition());
        details.put("blockedMs", Durations.ms(blocked));
        details.put("calls", r.calls().size());
        details.put("fromMs", Durations.ms(r.start() - rec.startNanos()));
        details.put("toMs", Durations.ms(r.end() - rec.startNanos()));
        details.put("slowestOp", most.op());
        details.put("ops", ops.stream().map(HandlerBlockedOnRemote::opEntry).toList());
        return new Finding(Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE, summary, List.of(handler), evidence, blocked, details)
                .at(r.start()).with(harm.measure());
    }

    /** "remote_index_load 310.2 ms (3 remote_fetch_index inside), remote_fetch 100.5 ms": the outermost calls in order. */
    private static String calls(HandlerRemoteRuns.Run r) {
        List<String> parts = new ArrayList<>();
        for (Span t : r.top().subList(0, Math.min(r.top().size(), 4))) {
            Map<String, Integer> inside = new TreeMap<>();
            for (Span c : r.calls()) {
                if (c != t && RemoteCallTimes.contains(t, c)) inside.merge(c.opName(), 1, Integer::sum);
            }
            parts.add(t.opName() + " " + Durations.text(t.duration()) + (inside.isEmpty() ? "" : " (" + inside.entrySet().stream()
                    .map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", ")) + " inside)"));
        }
        if (r.top().size() > 4) parts.add("and " + Counts.of(r.top().size() - 4, "more call"));
        return String.join(", ", parts);
    }

    /** One op's calls in the JSON, its keys always in this order. */
    private static Map<String, Object> opEntry(RemoteCallTimes.OpTime o) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("op", o.op());
        e.put("calls", o.count());
        e.put("ms", Durations.ms(o.totalNanos()));
        e.put("ownMs", Durations.ms(o.selfNanos()));
        return e;
    }

    private double seconds(long epochNanos) {
        return (epochNanos - rec.startNanos()) / 1e9;
    }
}
