package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.State;
import io.stallscope.analyzer.model.ThreadInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Builds the {@link ReportView} of an analysis. */
public final class ReportViews {
    /** Characters of a lane label: what the timeline's 300-pixel name column shows in its 12-pixel font. */
    public static final int LANE_LABEL = 44;
    /** Threads a finding's link filters the timeline to; a finding about more shows its moment unfiltered by the rest. */
    static final int LINK_THREADS = 8;

    private ReportViews() {
    }

    /** The top findings (--top), and the folded background line, which always comes last, even past the top. */
    static List<Finding> topWithFold(List<Finding> all, int n) {
        List<Finding> top = ReportView.top(all, n);
        if (top.size() == all.size() || all.isEmpty() || !all.get(all.size() - 1).kind().equals(Finding.BACKGROUND_IO)) return top;
        List<Finding> out = new ArrayList<>(top.subList(0, Math.max(0, top.size() - 1)));
        out.add(all.get(all.size() - 1));
        return out;
    }

    public static ReportView of(Analysis a) {
        Recording rec = a.recording();
        Options o = a.options();
        Map<Integer, Long> waited = new HashMap<>();
        Map<Integer, Long> held = new HashMap<>();
        // Wait time per stack first: up to 200 k waits share far fewer stacks, and each stack is walked once.
        Map<Integer, Long> waitingByStack = new HashMap<>();
        Map<Integer, Long> holdingByStack = new HashMap<>();
        for (Wait w : a.waits()) {
            waited.merge(w.thread, w.duration(), Long::sum);
            if (w.stack >= 0) waitingByStack.merge(w.stack, w.duration(), Long::sum);
            if (w.holder != null) {
                held.merge(w.holder.thread(), w.duration(), Long::sum);
                if (w.holder.stack() >= 0) holdingByStack.merge(w.holder.stack(), w.duration(), Long::sum);
            }
        }
        StackTree waiting = tree(rec, waitingByStack);
        StackTree holding = tree(rec, holdingByStack);

        boolean manyFiles = rec.files.size() > 1;
        List<String> names = new ArrayList<>();
        // Broker threads without what they all repeat; two names that become one keep their whole names.
        Map<String, Long> shortened = new HashMap<>();
        for (ThreadInfo t : rec.threads) shortened.merge(t.file() + " " + KafkaThreads.shortName(t.name()), 1L, Long::sum);
        for (ThreadInfo t : rec.threads) {
            String name = KafkaThreads.shortName(t.name());
            if (shortened.get(t.file() + " " + name) > 1) name = t.name();
            names.add(manyFiles ? "[" + (t.file() + 1) + "] " + name : name);
        }
        List<String> labels = LaneLabels.of(names, LANE_LABEL);
        List<ThreadView> all = new ArrayList<>();
        for (ThreadInfo t : rec.threads) {
            all.add(new ThreadView(t.id(), t.file(), t.name(), labels.get(t.id()), KafkaThreads.role(t.name()), t.javaId(),
                    t.osId(), a.samplesOf(t.id()), waited.getOrDefault(t.id(), 0L), held.getOrDefault(t.id(), 0L)));
        }

        List<ThreadView> threads = new ArrayList<>();
        for (ThreadView t : all) {
            if (o.threadMatches(t.name()) || held.containsKey(t.id())) threads.add(t);
        }

        // Lanes: threads in contentions first (by wait, then as holders), then the rest by name.
        Map<Integer, Long> involvement = new HashMap<>();
        waited.forEach((t, n) -> involvement.merge(t, n, Long::sum));
        held.forEach((t, n) -> involvement.merge(t, n, Long::sum));
        Set<Integer> spanThreads = new HashSet<>();
        rec.spans.forEach(s -> spanThreads.add(s.thread()));
        List<ThreadView> lanes = new ArrayList<>();
        for (ThreadView t : all) {
            boolean involved = involvement.containsKey(t.id());
            if (!involved && !o.threadMatches(t.name())) continue;
            if (!involved && t.samples() == 0 && !spanThreads.contains(t.id())) continue;
            lanes.add(t);
        }
        lanes.sort(Comparator.comparingLong((ThreadView t) -> -involvement.getOrDefault(t.id(), 0L))
                .thenComparing(t -> t.role().equals("other")).thenComparing(ThreadView::name).thenComparingInt(ThreadView::id));

        List<FindingView> findings = new ArrayList<>();
        for (Finding f : topWithFold(a.findings(), o.top())) findings.add(moment(f, rec.startNanos()));
        return new ReportView(a, List.copyOf(threads), List.copyOf(lanes), List.copyOf(findings), waiting, holding);
    }

    /** Stacks added in id order, so that boxes of equal weight come out the same on every run. */
    private static StackTree tree(Recording rec, Map<Integer, Long> byStack) {
        StackTree t = new StackTree("all");
        byStack.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> t.add(rec.stacks.frames(e.getKey()), rec.frames, e.getValue()));
        return t;
    }

    /** The finding's moment from the recording's start, and the threads to show there. */
    public static FindingView moment(Finding f, long origin) {
        Object writer = f.details().get("writerThread");
        Object reader = f.details().get("readerThread");
        // A write-behind pair is about its two threads; the other threads listed are further pairs.
        List<String> threads = writer != null && reader != null ? List.of(writer.toString(), reader.toString())
                : f.threads().stream().limit(LINK_THREADS).toList();
        long at = f.atNanos() == Finding.NO_MOMENT || f.atNanos() == Long.MAX_VALUE ? -1 : Math.max(0, f.atNanos() - origin);
        return new FindingView(f, at, threads);
    }

    static List<ThreadStates> states(ReportView v) {
        Analysis a = v.analysis();
        Options o = a.options();
        Recording rec = a.recording();
        List<ThreadStates> out = new ArrayList<>();
        for (ThreadView t : v.threads()) {
            // The profiler's and the agent's own threads are not what the operator asks about.
            if (t.samples() == 0 || !o.threadMatches(t.name()) || KafkaThreads.isTool(t.name())) continue;
            long[] by = new long[State.values().length];
            long storage = 0;
            long total = 0;
            for (Samples.Cursor c = rec.samples.lane(t.id()).cursorAt(o.from()); c.next() && c.time() <= o.to(); ) {
                by[c.state().ordinal()] += c.weight();
                if (v.inStorageCall(c.stack())) storage += c.weight();
                total += c.weight();
            }
            if (total > 0) out.add(new ThreadStates(t, by, storage, total));
        }
        // Wall-clock sampling samples every thread alike: the busy ones are those not idle (sleeping, parked, waiting).
        out.sort(Comparator.comparingLong(ThreadStates::busy).reversed().thenComparing(Comparator.comparingLong(ThreadStates::total).reversed())
                .thenComparing(s -> s.thread().name()));
        return List.copyOf(out);
    }
}
