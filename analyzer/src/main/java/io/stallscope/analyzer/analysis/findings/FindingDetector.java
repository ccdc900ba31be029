package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.IoEvent;
import io.stallscope.analyzer.model.IoEvents;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.ThreadInfo;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Names the stall patterns operators hunt, each with its evidence, the one explaining most stall time first. */
public final class FindingDetector {
    /** Fewer samples than this in a syscall is noise, not a pattern. */
    private static final int MIN_SAMPLES = 2;

    private final Analysis a;
    private final Recording rec;

    private final List<SpanStalls.Stall> stalls;

    public FindingDetector(Analysis a, List<SpanStalls.Stall> stalls) {
        this.a = a;
        this.rec = a.recording();
        this.stalls = stalls;
    }

    public List<Finding> detect() {
        List<Finding> out = new ArrayList<>();
        // the tiered-storage findings first: the spans they tell (a queued remote read, a handler's plugin call) are no slow-op
        Set<io.stallscope.analyzer.model.Span> told = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        List<Finding> remote = new ArrayList<>();
        new ReaderPoolSaturation(a).add(remote, told);
        new HandlerBlockedOnRemote(a).add(remote, told);
        new SpanFindings(a, stalls, told).add(out);
        out.addAll(remote);
        new WriteBehindSendfile(a).add(out);
        holdersInFileIo(out);
        threadActivity(out);
        ranking(out);
        SlowerBecause.link(out);
        SameStall.merge(out);
        order(out);
        return BackgroundFold.fold(out, a);
    }

    /** The retained waits of each lock, for the clients' cost of a finding about it. */
    private Map<String, List<Wait>> waitsByLock;

    private List<Wait> waitsOf(String lockKey) {
        if (waitsByLock == null) {
            waitsByLock = new HashMap<>();
            Options o = a.options();
            // Waits of one lock come in runs (a storm's 119 k are nearly all on one): the map only when the key changes.
            String lastKey = null;
            List<Wait> last = null;
            for (Wait w : a.waits()) {
                if (w.end < o.from() || w.start > o.to()) continue;
                if (w.lockKey != lastKey) {
                    lastKey = w.lockKey;
                    last = waitsByLock.computeIfAbsent(lastKey, k -> new ArrayList<>());
                }
                last.add(w);
            }
        }
        return waitsByLock.getOrDefault(lockKey, List.of());
    }

    private static int source(Wait w) {
        return w.recorded ? Harm.RECORDED_WAIT : Harm.INFERRED_WAIT;
    }

    /**
     * Most important first: by impact; among equals, an agent op that made others wait goes first (it names the
     * operation, partition and thread to look at) and the generic ranking last (the specific findings say what to fix).
     */
    static void order(List<Finding> out) {
        out.sort(Comparator.comparingDouble(Finding::impact).reversed().thenComparingInt(FindingDetector::rank)
                .thenComparing(Comparator.comparingLong(Finding::weightNanos).reversed()).thenComparing(Finding::kind));
        yieldToSpecific(out);
        // Then what hurt the clients ahead of the rest, most harm first (a stable sort keeps the order above among equals).
        ClientFirstOrder.sort(out);
    }

    /** A specific finding explaining this part of the generic ranking's impact says the same more usefully. */
    static final double SPECIFIC_SHARE = 0.10;

    /**
     * Moves the generic ranking of contended locks below every specific finding that explains at least
     * {@link #SPECIFIC_SHARE} of its impact: those name what held the lock and what to fix. A specific finding
     * explaining less (a 0.1 ms op under a lock waited 736 ms for) stays below it.
     */
    static void yieldToSpecific(List<Finding> out) {
        int g = -1;
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i).kind().equals(Finding.CONTENDED_LOCKS)) g = i;
        }
        if (g < 0) return;
        Finding generic = out.remove(g);
        int at = g;
        for (int i = g; i < out.size(); i++) {
            if (out.get(i).impact() >= SPECIFIC_SHARE * generic.impact()) at = i + 1;
        }
        out.add(at, generic);
    }

    private static int rank(Finding f) {
        return f.kind().equals(Finding.STALLED_OP_UNDER_LOCK) ? 0 : f.kind().equals(Finding.CONTENDED_LOCKS) ? 2 : 1;
    }

    /**
     * What the ranking says of a lock's holders, as the text report's lock list does: each thread that explains
     * a tenth of the waiting or more, else that none does (a storm where a hundred threads take turns has no
     * holder to name), else nothing when no holder was seen.
     */
    static String holders(Contention c, Recording rec) {
        if (c.holders().isEmpty()) return "";
        List<Contention.HolderShare> main = c.mainHolders();
        if (main.isEmpty()) return "; " + c.noMainHolder();
        StringBuilder b = new StringBuilder("; held by ");
        for (int i = 0; i < main.size(); i++) {
            Contention.HolderShare hs = main.get(i);
            b.append(i == 0 ? "" : ", ").append(String.format(java.util.Locale.ROOT, "%s (%s, %.0f%% of the waiting%s)",
                    rec.threadName(hs.thread), hs.source(), 100 * c.share(hs),
                    hs.inferredCount > 0 ? String.format(java.util.Locale.ROOT, ", confidence %.2f", hs.confidence()) : ""));
        }
        return b.toString();
    }

    /** A lock holder sitting in a storage call while others queue behind it: the classic broker stall. */
    private void holdersInFileIo(List<Finding> out) {
        for (Contention c : a.contentions()) {
            List<Contention.HolderShare> holders = new ArrayList<>();
            for (Contention.HolderShare h : c.holders()) {
                if (h.storageCount > 0 && !KafkaThreads.isTool(rec.threadName(h.thread))) holders.add(h);
            }
            if (holders.isEmpty()) continue;
            // The holder behind the most waiting speaks for the lock; the others are listed as evidence.
            holders.sort(Comparator.comparingLong((Contention.HolderShare h) -> h.storageNanos).reversed()
                    .thenComparingInt(h -> h.thread));
            long total = 0;
            long longest = 0;
            long longestStart = Finding.NO_MOMENT;
            Map<Integer, Long> waiters = new HashMap<>();
            for (Contention.HolderShare h : holders) {
                total += h.storageNanos;
                if (h.longestStorageWait > longest || longestStart == Finding.NO_MOMENT) longestStart = h.longestStorageStart;
                longest = Math.max(longest, h.longestStorageWait);
                h.storageWaiters.forEach((t, n) -> waiters.merge(t, n, Long::sum));
            }
            Holder h = holders.get(0).tellingStorage;
            Contention.HolderShare lead = holders.get(0);
            String holder = rec.threadName(h.thread());
            String frame = topJavaFrame(h.stack());
            String lock = c.logs.isEmpty() ? c.label : "log " + c.logs.get(0).log() + "'s lock " + c.label;
            String who = whoWaited(waiters.keySet(), rec);
            // What the holder was in: its agent ops around its longest wait in storage, outermost first (recorded).
            List<io.stallscope.analyzer.model.Span> ops = opsAround(h.thread(), lead.longestStorageStart, lead.longestStorageStart + lead.longestStorageWait);
            String opChain = ops.stream().map(o -> o.opName() + " " + Durations.text(o.duration()))
                    .collect(java.util.stream.Collectors.joining(" > ")) + (ops.isEmpty() || ops.get(0).topicPartition() == null ? "" : " for " + ops.get(0).topicPartition());
            String others = holders.size() > 1 ? " (and " + Counts.of(holders.size() - 1, "other holder") + ")" : "";
            String summary = String.format("%s waited %s in total on %s, held by %s%s%s, then %s(2)%s (longest %s)",
                    who, Durations.text(total), lock, holder, others, ops.isEmpty() ? "" : " in " + opChain, h.op().syscall,
                    frame == null ? "" : " in " + frame, Durations.text(longest));
            StallChain chain = new StallChain()
                    .waited(String.format("%s, %s in total, on %s", who, Durations.text(total), lock),
                            c.inferredWaits == 0 ? "recorded: lock events" : String.format("recorded: %s; inferred: %s from %s",
                                    Counts.of(c.recordedWaits, "lock event"), Counts.of(c.inferredWaits, "wait"), Counts.of(c.inferredSamples, "sample")))
                    .heldBy(holder + others, h.how().equals(Holder.RECORDED) ? "recorded: jdk.JavaMonitorEnter previousOwner"
                            : String.format(java.util.Locale.ROOT, "inferred from samples inside the locked method, confidence %.2f", lead.storageConfidence()));
            if (!ops.isEmpty()) chain.doing(opChain, "recorded: agent span" + (ops.size() > 1 ? "s" : ""));
            chain.then(h.op().syscall + "(2)" + (frame == null ? "" : " in " + frame),
                    "inferred: the holder's samples (or recorded file events) during the waits");
            chain.behind(ops);
            List<String> threads = new ArrayList<>();
            holders.forEach(e -> threads.add(rec.threadName(e.thread)));
            waiters.entrySet().stream().sorted(Map.Entry.<Integer, Long>comparingByValue().reversed()
                    .thenComparing(Map.Entry::getKey)).forEach(e -> {
                String n = rec.threadName(e.getKey());
                if (!threads.contains(n)) threads.add(n);
            });
            List<String> evidence = new ArrayList<>(chain.lines());
            evidence.add("lock taken at " + c.site + "; waits source: " + c.source()
                    + (c.inferredWaits > 0 ? " (" + Counts.of(c.inferredSamples, "sample") + " behind the inferred ones)" : ""));
            for (Contention.HolderShare e : holders.subList(0, Math.min(holders.size(), 5))) {
                Holder t = e.tellingStorage;
                String how = t.how().equals(Holder.RECORDED) ? "recorded: jdk.JavaMonitorEnter previousOwner"
                        : String.format(java.util.Locale.ROOT, "inferred from samples inside the locked method, confidence %.2f", e.storageConfidence());
                evidence.add(String.format("holder %s (%s) in %s(2) while %s totalling %s: %s", rec.threadName(e.thread),
                        how, t.op().syscall, Counts.of(e.storageCount, "wait"), Durations.text(e.storageNanos), a.frames(t.stack(), 10)));
            }
            waiters.entrySet().stream().sorted(Map.Entry.<Integer, Long>comparingByValue().reversed()
                    .thenComparing(Map.Entry::getKey)).limit(8)
                    .forEach(w -> evidence.add("waiter " + rec.threadName(w.getKey()) + " waited " + Durations.text(w.getValue())));
            HarmMeter harm = new HarmMeter(rec);
            // By thread id, for a look-up per wait (a boxed set's was a third of this loop).
            boolean[] holding = new boolean[holders.stream().mapToInt(e -> e.thread).max().getAsInt() + 1];
            holders.forEach(e -> {
                if (e.thread >= 0) holding[e.thread] = true;
            });
            for (Wait w : waitsOf(c.key)) {
                if (w.holder == null) continue;
                int t = w.holder.thread();
                if (t >= 0 && t < holding.length && holding[t] && w.holder.op().storage()) harm.add(w.thread, w.start, w.end, source(w));
            }
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("chain", chain.links());
            out.add(new Finding(Finding.HOLDER_IN_FILE_IO, summary, threads, evidence, total, details).at(longestStart).with(harm.measure()));
        }
    }

    /** "8 handlers", or "14 threads (8 request handler, 6 scheduler)": where the waiting was. */
    static String whoWaited(java.util.Collection<Integer> waiters, Recording rec) {
        Map<String, Integer> roles = new java.util.TreeMap<>();
        for (int t : waiters) roles.merge(KafkaThreads.role(rec.threadName(t)), 1, Integer::sum);
        if (roles.size() == 1 && roles.containsKey(KafkaThreads.REQUEST_HANDLER)) return Counts.of(waiters.size(), "handler");
        if (roles.size() == 1 && roles.containsKey(KafkaThreads.OTHER)) return Counts.of(waiters.size(), "thread");
        return Counts.of(waiters.size(), "thread") + " (" + roles.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey().replace('_', ' ')).collect(java.util.stream.Collectors.joining(", ")) + ")";
    }

    /**
     * The agent ops {@code thread} was in during [from, to], outermost first: the op overlapping most of it, with the
     * ops around it and inside it. None when no op covers half of it: an 8 ms op at the start of a 1.3 s wait is not
     * what the holder was doing meanwhile, and the chain leaves the link out rather than name it.
     */
    private List<io.stallscope.analyzer.model.Span> opsAround(int thread, long from, long to) {
        io.stallscope.analyzer.model.Span best = null;
        long bestOverlap = 0;
        List<io.stallscope.analyzer.model.Span> on = new ArrayList<>();
        for (io.stallscope.analyzer.model.Span s : rec.spans) {
            if (s.thread() != thread || s.start() >= to || s.end() <= from) continue;
            // the agent's log_append is the holder's whole append under the lock: where it is, not what it did
            if (SpanStalls.LOCK_WRAPPER_OP.equals(s.opName())) continue;
            on.add(s);
            long overlap = Math.min(s.end(), to) - Math.max(s.start(), from);
            if (overlap > bestOverlap || (overlap == bestOverlap && best != null && s.duration() < best.duration())) {
                best = s;
                bestOverlap = overlap;
            }
        }
        if (best == null || 2 * bestOverlap < to - from) return List.of();
        // the ops around it, outermost first; then inside it, each time the longest op inside the last one
        List<io.stallscope.analyzer.model.Span> out = new ArrayList<>();
        for (io.stallscope.analyzer.model.Span s : on) {
            if (s != best && s.start() <= best.start() && best.end() <= s.end()) out.add(s);
        }
        out.sort(Comparator.comparingLong(io.stallscope.analyzer.model.Span::duration).reversed());
        out.add(best);
        for (io.stallscope.analyzer.model.Span last = best; ; ) {
            io.stallscope.analyzer.model.Span next = null;
            for (io.stallscope.analyzer.model.Span s : on) {
                if (s != last && last.start() <= s.start() && s.end() <= last.end() && s.duration() < last.duration()
                        && (next == null || s.duration() > next.duration())) next = s;
            }
            if (next == null) return out;
            out.add(next);
            last = next;
        }
    }

    private String topJavaFrame(int stack) {
        int[] f = rec.stacks.frames(stack);
        for (int id : f) {
            if (rec.frames.isJava(id)) return rec.frames.label(id);
        }
        return f.length > 0 ? rec.frames.label(f[0]) : null;
    }

    /** Per thread: time in each storage call, from samples and recorded I/O events. */
    private void threadActivity(List<Finding> out) {
        Options o = a.options();
        long sendfileTotal = 0;
        List<String> networkThreads = new ArrayList<>();
        List<String> networkEvidence = new ArrayList<>();
        long fsyncTotal = 0;
        List<String> fsyncThreads = new ArrayList<>();
        List<String> fsyncEvidence = new ArrayList<>();
        boolean roll = false;
        // A segment roll's fsync on a thread no client waits on (a scheduler's flush of the rolled segment): named
        // apart, so "the produce path" only ever lists request handlers.
        long offPathTotal = 0;
        List<String> offPathThreads = new ArrayList<>();
        List<String> offPathEvidence = new ArrayList<>();
        long offPathAt = Long.MAX_VALUE;
        HarmMeter networkHarm = new HarmMeter(rec);
        HarmMeter fsyncHarm = new HarmMeter(rec);
        HarmMeter unmapHarm = new HarmMeter(rec);
        long unmapTotal = 0;
        long unmapSamples = 0;
        List<String> unmapThreads = new ArrayList<>();
        List<String> unmapEvidence = new ArrayList<>();
        // The first sample or event in each kind of stall: the moment a report points at.
        long networkAt = Long.MAX_VALUE;
        long fsyncAt = Long.MAX_VALUE;
        long unmapAt = Long.MAX_VALUE;

        // Recorded events become fsync (jdk.FileForce), a file read (jdk.FileRead), write(2) (jdk.FileWrite) or a socket
        // call. Only fsync and file reads make findings here: a socket call is not storage, and no finding below reads a
        // thread's time in write(2) (a write stalled behind a read is WriteBehindSendfile's). Those are most events (678 k
        // jdk.FileWrite in a minute of a handler storm), so they are left out by their type's number, before any work.
        IoOp[] opOfType = new IoOp[rec.io.typeCount()];
        for (int k = 0; k < opOfType.length; k++) opOfType[k] = eventOp(rec.io.typeName(k));
        int[][] io = ioInView(rec.io, rec.threads.size(), o.from(), o.to(), opOfType);
        for (ThreadInfo t : rec.threads) {
            if (!o.threadMatches(t.name()) || KafkaThreads.isTool(t.name())) continue;
            String role = KafkaThreads.role(t.name());
            long interval = a.intervals()[t.file()];
            Map<IoOp, long[]> time = new EnumMap<>(IoOp.class);
            Map<IoOp, Map<Integer, Long>> stacks = new EnumMap<>(IoOp.class);
            // When the thread sat in each call: {start, end, source} per sample or event, for the clients' cost.
            Map<IoOp, List<long[]>> when = new EnumMap<>(IoOp.class);
            boolean threadRoll = false;
            boolean indexWork = false;
            for (Samples.Cursor c = rec.samples.lane(t.id()).cursorAt(o.from()); c.next() && c.time() <= o.to(); ) {
                int stack = c.stack();
                IoOp op = a.classifier().io(stack);
                boolean index = indexWork(stack);
                if (index && op == IoOp.NONE) op = IoOp.MUNMAP;
                if (!op.storage()) continue;
                if (index) indexWork = true;
                if (op == IoOp.WRITE) continue; // as with the events below: no finding here reads it
                long[] tv = time.computeIfAbsent(op, k -> new long[] {0, 0, Long.MAX_VALUE});
                tv[0] += c.weight() * interval;
                tv[1] += c.weight();
                tv[2] = Math.min(tv[2], c.time());
                stacks.computeIfAbsent(op, k -> new HashMap<>()).merge(stack, (long) c.weight(), Long::sum);
                when.computeIfAbsent(op, k -> new ArrayList<>()).add(new long[] {c.time(), c.time() + c.weight() * interval, Harm.SAMPLES});
                if (op == IoOp.FSYNC && roll(stack)) threadRoll = true;
            }
            for (int e : t.id() < io.length && io[t.id()] != null ? io[t.id()] : new int[0]) {
                IoEvents ev = rec.io;
                IoOp op = opOfType[ev.typeNumber(e)];
                long start = ev.start(e);
                long end = ev.end(e);
                int stack = ev.stack(e);
                long[] tv = time.computeIfAbsent(op, k -> new long[] {0, 0, Long.MAX_VALUE});
                tv[0] += end - start;
                tv[2] = Math.min(tv[2], start);
                tv[1] += MIN_SAMPLES; // a recorded event passed JFR's threshold: it counts as seen
                if (stack > 0) stacks.computeIfAbsent(op, k -> new HashMap<>()).merge(stack, 1L, Long::sum);
                when.computeIfAbsent(op, k -> new ArrayList<>()).add(new long[] {start, end, Harm.RECORDED_WAIT});
                if (op == IoOp.FSYNC && roll(stack)) threadRoll = true;
            }

            if (role.equals(KafkaThreads.NETWORK)) {
                for (IoOp op : List.of(IoOp.SENDFILE, IoOp.FILE_READ)) {
                    long[] tv = time.get(op);
                    if (tv == null || tv[1] < MIN_SAMPLES) continue;
                    sendfileTotal += tv[0];
                    networkAt = Math.min(networkAt, tv[2]);
                    for (long[] w : when.getOrDefault(op, List.of())) networkHarm.add(t.id(), w[0], w[1], (int) w[2]);
                    if (!networkThreads.contains(t.name())) networkThreads.add(t.name());
                    networkEvidence.add(t.name() + ": ~" + Durations.text(tv[0]) + " in " + op.syscall + " (" + tv[1] + " samples), e.g. "
                            + a.frames(top(stacks.get(op)), 8));
                }
            }
            long[] fs = time.get(IoOp.FSYNC);
            boolean producePath = role.equals(KafkaThreads.REQUEST_HANDLER);
            if (fs != null && fs[1] >= MIN_SAMPLES && producePath) {
                fsyncTotal += fs[0];
                fsyncAt = Math.min(fsyncAt, fs[2]);
                roll |= threadRoll;
                fsyncThreads.add(t.name());
                fsyncEvidence.add(t.name() + ": ~" + Durations.text(fs[0]) + " in fsync (" + fs[1] + " samples)"
                        + (threadRoll ? ", under a segment roll" : "") + ", e.g. " + a.frames(top(stacks.get(IoOp.FSYNC)), 10));
                for (long[] w : when.getOrDefault(IoOp.FSYNC, List.of())) fsyncHarm.add(t.id(), w[0], w[1], (int) w[2]);
            } else if (fs != null && fs[1] >= MIN_SAMPLES && threadRoll) {
                offPathTotal += fs[0];
                offPathAt = Math.min(offPathAt, fs[2]);
                offPathThreads.add(t.name());
                offPathEvidence.add(t.name() + " (" + role.replace('_', ' ') + "): ~" + Durations.text(fs[0]) + " in fsync (" + fs[1]
                        + " samples), under a segment roll, e.g. " + a.frames(top(stacks.get(IoOp.FSYNC)), 10));
            }
            long threadUnmap = 0;
            long threadUnmapSamples = 0;
            for (IoOp op : List.of(IoOp.MUNMAP, IoOp.FTRUNCATE)) {
                long[] tv = time.get(op);
                if (tv == null) continue;
                threadUnmap += tv[0];
                threadUnmapSamples += tv[1];
                if (tv[1] > 0) unmapAt = Math.min(unmapAt, tv[2]);
            }
            if (threadUnmapSamples > 0) {
                for (IoOp op : List.of(IoOp.MUNMAP, IoOp.FTRUNCATE)) {
                    for (long[] w : when.getOrDefault(op, List.of())) unmapHarm.add(t.id(), w[0], w[1], (int) w[2]);
                }
                unmapTotal += threadUnmap;
                unmapSamples += threadUnmapSamples;
                unmapThreads.add(t.name());
                IoOp op = time.containsKey(IoOp.MUNMAP) ? IoOp.MUNMAP : IoOp.FTRUNCATE;
                unmapEvidence.add(t.name() + ": ~" + Durations.text(threadUnmap) + " in munmap/ftruncate (" + threadUnmapSamples
                        + " samples)" + (indexWork ? ", resizing an index" : "") + ", e.g. " + a.frames(top(stacks.get(op)), 10));
            }
        }
        if (!networkThreads.isEmpty()) {
            out.add(new Finding(Finding.NETWORK_THREAD_IO, String.format("%s spent ~%s in sendfile/transferTo or file reads instead of serving sockets",
                    Counts.of(networkThreads.size(), "network thread"), Durations.text(sendfileTotal)), networkThreads, networkEvidence, sendfileTotal)
                    .at(networkAt).with(networkHarm.measure()));
        }
        if (!fsyncThreads.isEmpty()) {
            out.add(new Finding(Finding.FSYNC_ON_PRODUCE, String.format("fsync on the produce path%s: %s spent ~%s in fsync",
                    roll ? " during a segment roll" : "", Counts.of(fsyncThreads.size(), "request handler"), Durations.text(fsyncTotal)),
                    fsyncThreads, fsyncEvidence, fsyncTotal).at(fsyncAt).with(fsyncHarm.measure()));
        }
        if (!offPathThreads.isEmpty()) {
            out.add(new Finding(Finding.ROLL_FSYNC_OFF_REQUEST_PATH, String.format("fsync under a segment roll off the request path: %s spent ~%s in fsync",
                    Counts.of(offPathThreads.size(), "thread"), Durations.text(offPathTotal)), offPathThreads, offPathEvidence, offPathTotal).at(offPathAt));
        }
        if (unmapSamples >= 3) {
            out.add(new Finding(Finding.INDEX_UNMAP_STORM, String.format("index resize / unmap storm: ~%s in munmap or ftruncate over %s on %s",
                    Durations.text(unmapTotal), Counts.of(unmapSamples, "sample"), Counts.of(unmapThreads.size(), "thread")), unmapThreads, unmapEvidence, unmapTotal)
                    .at(unmapAt).with(unmapHarm.measure()));
        }
    }

    private static int top(Map<Integer, Long> stacks) {
        if (stacks == null || stacks.isEmpty()) return 0;
        return stacks.entrySet().stream().max(Map.Entry.<Integer, Long>comparingByValue()
                .thenComparing(Map.Entry::getKey, Comparator.reverseOrder())).get().getKey();
    }

    private final Map<Integer, Boolean> rollFrames = new HashMap<>();
    private static final String[] INDEX = {"AbstractIndex.resize", "AbstractIndex.trimToValidSize", "forceUnmap"};
    /**
     * Kafka's roll methods (Log/UnifiedLog/LocalLog.roll, maybeRoll) and Scala's lambdas in them
     * ({@code $anonfun$roll$1}); a substring match would also take "Controller" or "scroll" for a roll.
     */
    private static final java.util.Set<String> ROLL_METHODS = java.util.Set.of("roll", "maybeRoll");

    /** Per stack id: 0 not yet looked at, 1 index work, 2 not. An array: this runs for every sample. */
    private byte[] indexStacks = new byte[0];

    /** Index resize or unmap code on the stack; cached per stack, as samples repeat stacks. */
    private boolean indexWork(int stack) {
        if (stack >= indexStacks.length) indexStacks = java.util.Arrays.copyOf(indexStacks, Math.max(stack + 1, rec.stacks.size()));
        byte b = indexStacks[stack];
        if (b == 0) indexStacks[stack] = b = (byte) (scanFrames(stack, INDEX) ? 1 : 2);
        return b == 1;
    }

    /** A segment roll on the stack. */
    private boolean roll(int stack) {
        Boolean b = rollFrames.get(stack);
        if (b == null) rollFrames.put(stack, b = rollMethodOnStack(stack));
        return b;
    }

    private boolean rollMethodOnStack(int stack) {
        for (int f : rec.stacks.frames(stack)) {
            String n = rec.frames.name(f);
            for (String part : n.substring(n.lastIndexOf('.') + 1).split("\\$")) {
                if (ROLL_METHODS.contains(part)) return true;
            }
        }
        return false;
    }

    private boolean scanFrames(int stack, String... parts) {
        for (int f : rec.stacks.frames(stack)) {
            String n = rec.frames.name(f);
            for (String p : parts) {
                if (n.contains(p)) return true;
            }
        }
        return false;
    }

    /** The generic ranking of contended locks; it ranks below the specific findings that explain the same waits. */
    private void ranking(List<Finding> out) {
        // Locks only samples show are listed apart (the report's inferred contention), never as a finding.
        List<Contention> cs = a.contentions().stream().filter(c -> !c.inferredOnly()).toList();
        if (cs.isEmpty()) return;
        Contention first = cs.get(0);
        List<String> evidence = new ArrayList<>();
        List<String> threads = new ArrayList<>();
        for (Contention c : cs.subList(0, Math.min(cs.size(), Math.max(1, a.options().top())))) {
            evidence.add(String.format(java.util.Locale.ROOT, "%s: %s over %s by %s, source: %s%s", c.label, Durations.text(c.totalWaitNanos),
                    Counts.of(c.waitCount, "wait"), Counts.of(c.waiters().size(), "thread"), c.source(), holders(c, rec)));
            c.waiters().forEach(s -> {
                String n = rec.threadName(s.thread);
                if (!threads.contains(n)) threads.add(n);
            });
        }
        String summary = String.format("%s; most waited: %s, %s over %s by %s", Counts.of(cs.size(), "contended lock"),
                first.label, Durations.text(first.totalWaitNanos), Counts.of(first.waitCount, "wait"), Counts.of(first.waiters().size(), "thread"));
        HarmMeter harm = new HarmMeter(rec);
        for (Wait w : waitsOf(first.key)) harm.add(w.thread, w.start, w.end, source(w));
        out.add(new Finding(Finding.CONTENDED_LOCKS, summary, threads, evidence, first.totalWaitNanos).at(first.longestWaitStart).with(harm.measure()));
    }

    /**
     * The numbers in {@code io} of each thread's fsync and file-read events ({@code opOfType} by type number)
     * overlapping [from, to], in the recording's order, by thread id (null: none): numbers into the columns, not an
     * {@link IoEvent} each (a minute of a handler storm has 678 k events, nearly all of them writes, which are left out).
     */
    static int[][] ioInView(IoEvents io, int threads, long from, long to, IoOp[] opOfType) {
        boolean[] kept = new boolean[opOfType.length];
        for (int k = 0; k < kept.length; k++) kept[k] = FindingsIo.everyEvent(opOfType[k]);
        int[] count = new int[threads];
        for (int i = 0; i < io.size(); i++) {
            int t = io.thread(i);
            if (kept[io.typeNumber(i)] && t >= 0 && t < threads && io.end(i) >= from && io.start(i) <= to) count[t]++;
        }
        int[][] out = new int[threads][];
        for (int t = 0; t < threads; t++) {
            if (count[t] > 0) out[t] = new int[count[t]];
            count[t] = 0;
        }
        for (int i = 0; i < io.size(); i++) {
            int t = io.thread(i);
            if (kept[io.typeNumber(i)] && t >= 0 && t < threads && io.end(i) >= from && io.start(i) <= to) out[t][count[t]++] = i;
        }
        return out;
    }

    /** The call a recorded I/O event of type {@code type} ("FileForce"...) shows its thread in. */
    static IoOp eventOp(String type) {
        return type.equals("FileForce") ? IoOp.FSYNC : type.equals("FileRead") ? IoOp.FILE_READ
                : type.equals("FileWrite") ? IoOp.WRITE : IoOp.SOCKET;
    }
}
