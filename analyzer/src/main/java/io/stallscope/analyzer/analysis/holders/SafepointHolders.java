package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Safepoint;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Names what held each slow safepoint up, preferring what the recording says to what samples suggest:
 * <ol>
 *   <li>the agent's {@code stallscope.SafepointSync} naming the op it paired the sync with (recorded);</li>
 *   <li>else an agent {@code index_lookup} span on some thread that covers the whole sync (recorded: the agent
 *       timed that thread in an index read from before the VM asked to stop until after the last thread did);</li>
 *   <li>else the samples taken during the sync ({@link SampledHolders}): the thread seen last in Java code, in a
 *       page fault or an index read before any thread merely running (inferred).</li>
 * </ol>
 * Where samples show the named thread's page fault (kernel frames), that is added to a recorded index read as an
 * inferred link. Where nothing names a thread, none is named.
 */
public final class SafepointHolders {
    /** The agent's op for a read of a memory-mapped index. */
    static final String INDEX_LOOKUP = "index_lookup";
    /** Slack between a span's and a sync's clocks: the agent's own pairing allows 2 ms (its syncStart is in ms). */
    static final long SLACK_NANOS = 2_000_000L;
    private static final String AGENT_EVENT = "agent's " + Safepoint.AGENT_EVENT;

    private final Recording rec;
    private final SampledHolders sampled;
    /** The agent's index_lookup spans, by start. */
    private final List<Span> lookups;

    public SafepointHolders(Recording rec, SampledHolders sampled) {
        this.rec = rec;
        this.sampled = sampled;
        List<Span> l = new ArrayList<>();
        for (Span s : rec.spans) {
            if (INDEX_LOOKUP.equals(s.opName())) l.add(s);
        }
        l.sort(Comparator.comparingLong(Span::start));
        this.lookups = l;
    }

    /** Each of {@code slow}, with what held it up, the longest sync first. */
    public List<SlowSafepoint> explain(List<Safepoint> slow) {
        List<SlowSafepoint> out = new ArrayList<>();
        for (Safepoint s : slow) out.add(explain(s));
        out.sort(Comparator.comparingLong((SlowSafepoint x) -> x.safepoint().syncNanos()).reversed()
                .thenComparingLong(x -> x.safepoint().syncStart()));
        return out;
    }

    SlowSafepoint explain(Safepoint s) {
        SlowSafepoint.Link stop = new SlowSafepoint.Link(Durations.text(s.syncNanos()) + " to safepoint", SlowSafepoint.Source.RECORDED,
                s.jdkSync() ? "jdk.SafepointStateSynchronization" : AGENT_EVENT);
        Map<Integer, SampledHolders.Tally> tallies = sampled.of(s);
        if (s.agent() != null && s.agent().paired()) {
            Safepoint.Agent a = s.agent();
            SlowSafepoint.Link holder = new SlowSafepoint.Link(a.behindThread(), SlowSafepoint.Source.RECORDED, AGENT_EVENT);
            SlowSafepoint.Link doing = new SlowSafepoint.Link(inOp(a.behindOp(), a.behindPath()), SlowSafepoint.Source.RECORDED, AGENT_EVENT);
            int id = threadNamed(s.file(), a.behindThread());
            return new SlowSafepoint(s, stop, holder, id, withFault(doing, tallies, id, a.behindPath()), null);
        }
        Span covering = covering(s);
        if (covering != null) {
            String basis = String.format(java.util.Locale.ROOT, "agent's index_lookup span, %s from %s before the sync to %s after",
                    Durations.text(covering.duration()), Durations.text(s.syncStart() - covering.start()), Durations.text(covering.end() - s.syncEnd()));
            SlowSafepoint.Link holder = new SlowSafepoint.Link(rec.threadName(covering.thread()), SlowSafepoint.Source.RECORDED, basis);
            SlowSafepoint.Link doing = new SlowSafepoint.Link(inOp(covering.opName(), covering.path()), SlowSafepoint.Source.RECORDED, basis);
            return new SlowSafepoint(s, stop, holder, covering.thread(), withFault(doing, tallies, covering.thread(), covering.path()), null);
        }
        return fromSamples(s, stop, tallies);
    }

    /** "in an index read (index_lookup) of FILE". */
    private static String inOp(String op, String path) {
        String what = INDEX_LOOKUP.equals(op) ? "an index read (index_lookup)" : op == null ? "an op" : op;
        return "in " + what + (path == null || path.isEmpty() ? "" : " of " + path);
    }

    /** A recorded index read, or the same read in a page fault where the thread's samples in the sync show kernel fault frames. */
    private SlowSafepoint.Link withFault(SlowSafepoint.Link doing, Map<Integer, SampledHolders.Tally> tallies, int thread, String path) {
        SampledHolders.Tally t = thread < 0 ? null : tallies.get(thread);
        if (t == null || t.faults == 0) return doing;
        return new SlowSafepoint.Link("in a page fault" + (path == null || path.isEmpty() ? "" : " on " + path), SlowSafepoint.Source.INFERRED,
                t.faults + " of its samples in the sync show kernel page-fault frames; the index read: " + doing.source().label()
                        + " (" + doing.basis() + ")");
    }

    /** The first-begun index_lookup span of the safepoint's JVM that covers its whole sync, or null. */
    private Span covering(Safepoint s) {
        for (Span l : lookups) {
            if (l.start() > s.syncStart() + SLACK_NANOS) break;
            if (l.end() >= s.syncEnd() - SLACK_NANOS && l.thread() >= 0 && rec.threads.get(l.thread()).file() == s.file()) return l;
        }
        return null;
    }

    /**
     * The thread of {@code file} the agent named, or -1: by the name the JVM gave it (a name several threads share
     * has a suffix here, " #42", so the first of them).
     */
    private int threadNamed(int file, String name) {
        for (var t : rec.threads) {
            if (t.file() == file && (t.name().equals(name) || t.name().startsWith(name + " #") || t.name().startsWith(name + " tid "))) {
                return t.id();
            }
        }
        return -1;
    }

    /**
     * The thread the samples show last in Java code during the sync: the last to stop is the one the others waited
     * for. A thread in a page fault or an index read is preferred to one merely running: that is the stall Kafka's
     * mapped indexes cause, and a thread running a short loop may have stopped at its next poll.
     */
    private SlowSafepoint fromSamples(Safepoint s, SlowSafepoint.Link stop, Map<Integer, SampledHolders.Tally> tallies) {
        int best = -1;
        SampledHolders.Tally bt = null;
        for (Map.Entry<Integer, SampledHolders.Tally> e : tallies.entrySet()) {
            SampledHolders.Tally t = e.getValue();
            if (bt == null || better(t, e.getKey(), bt, best)) {
                best = e.getKey();
                bt = t;
            }
        }
        if (bt == null) {
            String why = s.agent() != null ? "the agent paired no op with it, and no sample shows a thread in Java code during it (the JDK's own sampler"
                    + " takes none during a sync)"
                    : "no agent event or index_lookup span covers it, and no sample shows a thread in Java code during it"
                    + " (the JDK's own sampler takes none during a sync)";
            return new SlowSafepoint(s, stop, null, -1, null, why);
        }
        String frame = bt.frame >= 0 ? rec.frames.name(bt.frame) : "Java code";
        String basis = String.format(java.util.Locale.ROOT, "%s in Java code during the sync, %s to %s into it%s",
                Counts.of(bt.count(), "sample"), Durations.text(bt.first - s.syncStart()), Durations.text(bt.last - s.syncStart()),
                tallies.size() > 1 ? "; " + (tallies.size() - 1) + " other thread(s) also seen in Java code during it" : "");
        SlowSafepoint.Link holder = new SlowSafepoint.Link(rec.threadName(best), SlowSafepoint.Source.INFERRED, basis);
        String what;
        if (bt.faults > 0) {
            Span lookup = lookupDuring(s, best);
            what = "in a page fault" + (lookup != null && lookup.path() != null ? " on " + lookup.path() : "") + " (in " + frame + ")";
        } else if (bt.indexReads > 0) {
            what = "in an index read (" + frame + ")";
        } else {
            what = "running " + frame;
        }
        return new SlowSafepoint(s, stop, holder, best, new SlowSafepoint.Link(what, SlowSafepoint.Source.INFERRED, basis), null);
    }

    /** In a page fault or an index read beats running; then the later last sample; then more samples; then the lower id. */
    private static boolean better(SampledHolders.Tally t, int id, SampledHolders.Tally than, int thanId) {
        boolean index = t.faults + t.indexReads > 0;
        boolean thanIndex = than.faults + than.indexReads > 0;
        if (index != thanIndex) return index;
        if (t.last != than.last) return t.last > than.last;
        if (t.count() != than.count()) return t.count() > than.count();
        return id < thanId;
    }

    /** An index_lookup span of {@code thread} overlapping the sync: the file its fault was on. */
    private Span lookupDuring(Safepoint s, int thread) {
        for (Span l : lookups) {
            if (l.start() > s.syncEnd()) break;
            if (l.thread() == thread && l.end() >= s.syncStart()) return l;
        }
        return null;
    }
}
