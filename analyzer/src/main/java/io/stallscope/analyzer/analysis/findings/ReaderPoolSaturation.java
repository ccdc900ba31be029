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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code remote-reader-pool-saturated} (issue 55): consumers' reads from the remote tier queued in the broker's
 * remote-log-reader pool because every pool thread was busy with another remote read. Kafka shows this only broker-wide
 * ({@code RemoteLogReaderTaskQueueSize}, {@code RemoteLogReaderAvgIdlePercent}); the agent times each wait
 * ({@code remote_queue_wait}) and each read ({@code remote_read}) with its partition. The waits that overlapped in
 * time are one burst ({@link PoolBursts}), told with the reads that held the pool meanwhile ({@link PoolHolders}),
 * those that held it longest first ({@link #lead}) and the count of the others: "8 remote reads queued 1400.0 ms in
 * all (longest 310.0 ms) in the remote-log-reader pool behind 2 reads of orders-7 (1200.0, 900.0 ms) and 6 more reads
 * (60.2 ms in all) from remote storage". A burst whose waits no read in the recording overlapped says so and names
 * none. No pool thread is a request handler, so the clients' harm is none: a consumer's fetch waits in purgatory.
 * The spans a finding tells are no {@code slow-op} of their own (one stall, one finding).
 */
final class ReaderPoolSaturation {
    /** A burst whose longest wait is shorter is a busy pool's hand-off, not a saturation worth a finding. */
    static final long MIN_WAIT_NANOS = 10_000_000L;
    /** Bursts with a finding each (the most waiting first); the rest are summed in the first one's evidence. */
    static final int MAX_BURSTS = 3;
    /** Holders listed in the JSON (the lead, then the longest reads; {@code holderReads} counts them all). */
    static final int MAX_JSON_HOLDERS = 100;
    /** Waits and holders listed one by one in the evidence. */
    static final int LISTED = 8;
    static final String WHAT_HELPS = "what helps: a faster remote tier for the reads that held the pool (their plugin calls"
            + " are inside them), or a bigger pool (remote.log.reader.threads, default 10), so one slow partition does not hold"
            + " every consumer reading from the remote tier";

    private final Analysis a;
    private final Recording rec;

    ReaderPoolSaturation(Analysis a) {
        this.a = a;
        this.rec = a.recording();
    }

    /** Adds the findings to {@code out}, and the spans they tell (waits, holding reads, the calls inside them) to {@code told}. */
    void add(List<Finding> out, Set<Span> told) {
        Options o = a.options();
        List<Span> waits = new ArrayList<>();
        List<Span> reads = new ArrayList<>();
        Map<Integer, List<Span>> callLists = new HashMap<>();
        for (Span s : rec.spans) {
            if (s.end() < o.from() || s.start() > o.to() || KafkaThreads.isTool(rec.threadName(s.thread()))) continue;
            if (RemoteOps.is(s, RemoteOps.QUEUE_WAIT)) waits.add(s);
            else if (RemoteOps.is(s, RemoteOps.READ)) reads.add(s);
            else if (RemoteOps.call(s)) callLists.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(s);
        }
        if (waits.isEmpty()) return;
        // per thread by start, for the calls inside each holding read (a burst of an hour has thousands)
        Map<Integer, Span[]> calls = new HashMap<>();
        callLists.forEach((t, l) -> calls.put(t, RemoteCallTimes.byStart(l).toArray(new Span[0])));
        List<PoolBursts.Burst> bursts = new ArrayList<>(PoolBursts.of(waits, rec).stream()
                .filter(b -> b.longest().duration() >= MIN_WAIT_NANOS).toList());
        if (bursts.isEmpty()) return;
        bursts.sort(Comparator.comparingLong(PoolBursts.Burst::totalNanos).reversed().thenComparingLong(PoolBursts.Burst::start));
        PoolHolders holders = new PoolHolders(reads, rec);
        List<Finding> mine = new ArrayList<>();
        for (PoolBursts.Burst b : bursts.subList(0, Math.min(bursts.size(), MAX_BURSTS))) {
            List<PoolHolders.Holder> hs = holders.of(b);
            mine.add(finding(b, hs, calls));
            told.addAll(b.waits());
            for (PoolHolders.Holder h : hs) {
                if (h.read() == null) continue;
                told.add(h.read());
                told.addAll(inside(h.read(), calls));
            }
        }
        if (bursts.size() > MAX_BURSTS) {
            List<PoolBursts.Burst> rest = bursts.subList(MAX_BURSTS, bursts.size());
            Finding f = mine.get(0);
            List<String> evidence = new ArrayList<>(f.evidence());
            evidence.add(String.format(Locale.ROOT, "%s of the pool: %s queued %s in all", Counts.of(rest.size(), "more burst"),
                    Counts.of(rest.stream().mapToLong(x -> x.waits().size()).sum(), "remote read"),
                    Durations.text(rest.stream().mapToLong(PoolBursts.Burst::totalNanos).sum())));
            mine.set(0, f.with(evidence));
        }
        out.addAll(mine);
    }

    private Finding finding(PoolBursts.Burst b, List<PoolHolders.Holder> byDuration, Map<Integer, Span[]> calls) {
        Span longest = b.longest();
        String queued = String.format(Locale.ROOT, "%s queued %s in all (longest %s) in the remote-log-reader pool",
                Counts.of(b.waits().size(), "remote read"), Durations.text(b.totalNanos()), Durations.text(longest.duration()));
        Map<Boolean, List<PoolHolders.Holder>> split = lead(byDuration);
        List<PoolHolders.Holder> lead = split.get(true), more = split.get(false);
        // as the summary tells them, in the evidence and the JSON too: the lead, then the others
        List<PoolHolders.Holder> holders = new ArrayList<>(lead);
        holders.addAll(more);
        String summary = queued + (holders.isEmpty()
                ? "; no remote read in the recording ran during the waits, so what held the pool is not known"
                : " behind " + heldBy(lead, more) + " from remote storage");

        StallChain chain = new StallChain().waited(String.format(Locale.ROOT, "%s for %s, %s in all, from +%.3f s to +%.3f s",
                Counts.of(b.waits().size(), "remote read"), partitions(b.waits()), Durations.text(b.totalNanos()),
                seconds(b.start()), seconds(b.end())), "recorded: stallscope.RemoteQueueWait spans");
        if (!holders.isEmpty()) {
            long recorded = b.waits().stream().filter(w -> w.behind() != null && RemoteOps.READ.equals(w.behind().op())).count();
            boolean inferred = holders.stream().anyMatch(h -> !h.recorded());
            String source = recorded > 0 ? "recorded: the behind fields of " + recorded + " of the " + Counts.of(b.waits().size(), "wait")
                    + (inferred ? "; inferred: remote_read spans that overlapped the waits" : "")
                    : "inferred: remote_read spans that overlapped the waits";
            // the threads of the leading reads whose spans are in (heldBy names those without a span by their thread)
            String on = lead.stream().filter(h -> h.read() != null).map(PoolHolders.Holder::thread).distinct()
                    .collect(Collectors.joining(", "));
            chain.heldBy(heldBy(lead, List.of()) + (on.isEmpty() ? "" : " on " + on) + (more.isEmpty() ? "" : ", and " + more(more)), source);
            // the longest leading read whose span is in
            lead.stream().filter(h -> h.read() != null).findFirst()
                    .ifPresent(h -> chain.doing(doing(h.read(), calls), "recorded: agent spans"));
        }

        List<String> evidence = new ArrayList<>(chain.lines());
        List<Span> byLength = new ArrayList<>(b.waits());
        byLength.sort(Comparator.comparingLong(Span::duration).reversed().thenComparingLong(Span::start));
        for (Span w : byLength.subList(0, Math.min(byLength.size(), LISTED))) {
            evidence.add(String.format(Locale.ROOT, "queued: %s on %s at +%.3f s for %s, %s%s", w.opName(), rec.threadName(w.thread()),
                    seconds(w.start()), Durations.text(w.duration()), RemoteOps.partition(w), w.behind() == null ? ""
                            : "; " + StallChain.behindText(w.opName(), w.behind()) + " [recorded: the agent's behind fields]"));
        }
        if (byLength.size() > LISTED) evidence.add("... " + Counts.of(byLength.size() - LISTED, "more wait") + " (all in --json: spans)");
        for (PoolHolders.Holder h : holders.subList(0, Math.min(holders.size(), LISTED))) evidence.add(holderLine(h));
        if (holders.size() > LISTED) evidence.add("... " + Counts.of(holders.size() - LISTED, "more read") + " held the pool");
        Set<String> pool = new LinkedHashSet<>();
        b.waits().forEach(w -> pool.add(rec.threadName(w.thread())));
        holders.forEach(h -> pool.add(h.thread()));
        evidence.add("pool threads seen in the burst: " + String.join(", ", new java.util.TreeSet<>(pool)));
        evidence.add(WHAT_HELPS);

        List<String> threads = new ArrayList<>();
        holders.forEach(h -> {
            if (!threads.contains(h.thread())) threads.add(h.thread());
        });
        byLength.forEach(w -> {
            String n = rec.threadName(w.thread());
            if (!threads.contains(n)) threads.add(n);
        });
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("chain", chain.links());
        details.put("queuedReads", b.waits().size());
        details.put("totalWaitMs", Durations.ms(b.totalNanos()));
        details.put("longestWaitMs", Durations.ms(longest.duration()));
        details.put("startMs", Durations.ms(b.start() - rec.startNanos()));
        details.put("endMs", Durations.ms(b.end() - rec.startNanos()));
        details.put("queuedPartitions", b.waits().stream().map(Span::topicPartition).filter(java.util.Objects::nonNull).distinct().sorted().toList());
        // a pool busy for an hour is one burst of thousands of holders: the JSON lists the lead, then the longest reads
        details.put("holderReads", holders.size());
        details.put("holders", holders.stream().limit(MAX_JSON_HOLDERS).map(this::holderEntry).toList());
        // No pool thread serves a request: the fetches that wait are in purgatory, not on a request-path thread.
        return new Finding(Finding.REMOTE_READER_POOL_SATURATED, summary, threads, evidence, b.totalNanos(), details)
                .at(longest.start());
    }

    /**
     * The holders an operator reads first (true, in their order): those that held a pool thread at least half as long
     * as the longest did (a read only the waits' behind fields name, by its overlap: it held the thread that long at
     * least), and every read the agent named for a wait (that wait's longest overlap). The others (false), often the
     * burst's own quick reads that took a thread ahead of a later wait, are counted after them ({@link #more}), never
     * left out.
     */
    static Map<Boolean, List<PoolHolders.Holder>> lead(List<PoolHolders.Holder> holders) {
        long longest = holders.stream().mapToLong(PoolHolders.Holder::heldNanos).max().orElse(0);
        return holders.stream().collect(Collectors.partitioningBy(h -> h.recorded() || h.heldNanos() * 2 >= longest));
    }

    /** "6 more reads (60.2 ms in all)", "1 more read (10.0 ms)": the holders after the lead, all with their spans. */
    static String more(List<PoolHolders.Holder> more) {
        long sum = held(more);
        return Counts.of(more.size(), "more read") + " (" + Durations.text(sum) + (more.size() == 1 ? ")" : " in all)");
    }

    /**
     * The leading holders: "2 reads of orders-7 (300.2, 300.1 ms)"; by partition, "3 reads: 2 of orders-7 (...), 1 of
     * orders-3 (...)"; a read only the waits' behind fields name, by its thread. Then the {@code more} holders' count:
     * "2 reads of orders-7 (300.2, 300.1 ms) and 6 more reads (60.2 ms in all)".
     */
    static String heldBy(List<PoolHolders.Holder> lead, List<PoolHolders.Holder> more) {
        Map<String, List<PoolHolders.Holder>> byPartition = new LinkedHashMap<>();
        List<String> unseen = new ArrayList<>();
        for (PoolHolders.Holder h : lead) {
            if (h.read() == null) unseen.add(h.thread());
            else byPartition.computeIfAbsent(RemoteOps.partition(h.read()), k -> new ArrayList<>()).add(h);
        }
        // each part without its count: "of orders-7 (300.2, 300.1 ms)", "on T whose own event ..."
        List<String> parts = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        // the partitions whose reads held the pool longest first; a few reads by their durations, more by their sum
        byPartition.entrySet().stream().sorted(Comparator.comparingLong((Map.Entry<String, List<PoolHolders.Holder>> e) -> -held(e.getValue()))
                .thenComparing(Map.Entry::getKey)).forEach(e -> {
            List<PoolHolders.Holder> hs = e.getValue();
            parts.add("of " + e.getKey() + " (" + (hs.size() <= 3 ? Durations.list(hs.stream().mapToLong(PoolHolders.Holder::durationNanos).toArray())
                    : Durations.text(held(hs)) + " in all, longest " + Durations.text(hs.get(0).durationNanos())) + ")");
            counts.add(hs.size());
        });
        if (!unseen.isEmpty()) {
            parts.add("on " + String.join(", ", unseen) + " whose own event" + (unseen.size() == 1 ? " is" : "s are")
                    + " not in the recording (named by the waits' behind fields)");
            counts.add(unseen.size());
        }
        String reads = Counts.of(lead.size(), "read");
        if (parts.size() == 1) return reads + " " + parts.get(0) + (more.isEmpty() ? "" : " and " + more(more));
        int shown = Math.min(parts.size(), 3);
        List<String> listed = new ArrayList<>();
        for (int i = 0; i < shown; i++) listed.add(counts.get(i) + " " + parts.get(i));
        return reads + ": " + String.join(", ", listed) + (parts.size() > shown ? ", and " + Counts.of(parts.size() - shown, "more partition") : "")
                + (more.isEmpty() ? "" : ", and " + more(more));
    }

    private static long held(List<PoolHolders.Holder> hs) {
        return hs.stream().mapToLong(PoolHolders.Holder::durationNanos).sum();
    }

    /** "remote_read of orders-7 for 300.2 ms on remote-log-reader1; inside it remote_fetch 290.1 ms": the lead holder's work. */
    private String doing(Span read, Map<Integer, Span[]> calls) {
        List<Span> inside = inside(read, calls);
        String in = inside.isEmpty() ? "" : "; inside it " + RemoteCallTimes.text(RemoteCallTimes.of(inside).stream()
                .sorted(Comparator.comparingLong(RemoteCallTimes.OpTime::totalNanos).reversed()).toList());
        return String.format(Locale.ROOT, "%s of %s for %s on %s%s", read.opName(), RemoteOps.partition(read),
                Durations.text(read.duration()), rec.threadName(read.thread()), in);
    }

    /** The remote calls the agent timed inside a read, on its thread ({@code calls}: each thread's, by start). */
    private static List<Span> inside(Span read, Map<Integer, Span[]> calls) {
        Span[] mine = calls.get(read.thread());
        if (mine == null) return List.of();
        List<Span> out = new ArrayList<>();
        int lo = 0, hi = mine.length;
        long from = read.start() - RemoteCallTimes.JITTER_NANOS;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (mine[mid].start() < from) lo = mid + 1;
            else hi = mid;
        }
        for (int i = lo; i < mine.length && mine[i].start() <= read.end(); i++) {
            if (RemoteCallTimes.contains(read, mine[i])) out.add(mine[i]);
        }
        return out;
    }

    private String holderLine(PoolHolders.Holder h) {
        String how = h.recorded() ? String.format(Locale.ROOT, "recorded: named by the behind fields of %s", Counts.of(h.recordedWaits(), "wait"))
                : "inferred: its span overlapped the waits";
        if (h.read() == null) {
            return String.format(Locale.ROOT, "held by: remote_read on %s, overlapping a wait by %s; its own event is not in the recording"
                    + " (shorter than the agent's jfr.threshold.remote_read, or still running at the recording's end) [%s]",
                    h.thread(), Durations.text(h.overlapNanos()), how);
        }
        Span r = h.read();
        return String.format(Locale.ROOT, "held by: remote_read on %s at +%.3f s for %s, %s, running during %s (longest overlap %s) [%s]",
                h.thread(), seconds(r.start()), Durations.text(r.duration()), RemoteOps.partition(r), Counts.of(h.waits(), "wait"),
                Durations.text(h.overlapNanos()), how);
    }

    /** One holder in the JSON, its keys always in this order. */
    private Map<String, Object> holderEntry(PoolHolders.Holder h) {
        Map<String, Object> e = new LinkedHashMap<>();
        Span r = h.read();
        e.put("thread", h.thread());
        e.put("topic", r == null ? null : r.topic());
        e.put("partition", r == null ? -1 : r.partition());
        e.put("startMs", r == null ? null : Durations.ms(r.start() - rec.startNanos()));
        e.put("durationMs", r == null ? null : Durations.ms(r.duration()));
        e.put("overlapMs", Durations.ms(h.overlapNanos()));
        e.put("waits", h.waits());
        e.put("source", h.recorded() ? "recorded" : "inferred");
        return e;
    }

    /** "orders-1, orders-2 and 3 more partitions" (those known). */
    private static String partitions(List<Span> waits) {
        List<String> tps = waits.stream().map(RemoteOps::partition).distinct().sorted().toList();
        return tps.size() <= 4 ? String.join(", ", tps) : String.join(", ", tps.subList(0, 3)) + " and "
                + Counts.of(tps.size() - 3, "more partition");
    }

    private double seconds(long epochNanos) {
        return (epochNanos - rec.startNanos()) / 1e9;
    }
}
