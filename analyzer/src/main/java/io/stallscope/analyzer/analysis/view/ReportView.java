package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.model.Recording;

import java.util.List;

/**
 * What the reports show, prepared by the analysis: the threads with their roles and lane labels, the findings
 * with their moments, the waiting and holding stacks merged for a flame view, and, when asked, what each thread's
 * samples say it was doing. The renderers (text, JSON, HTML) only lay this out; they never classify a stack or
 * name a thread's role themselves. Built by {@link ReportViews#of}.
 */
public final class ReportView {
    private final Analysis analysis;
    private final List<ThreadView> threads;
    private final List<ThreadView> lanes;
    private final List<FindingView> findings;
    private final StackTree waiting;
    private final StackTree holding;
    private List<ThreadStates> states;

    ReportView(Analysis analysis, List<ThreadView> threads, List<ThreadView> lanes, List<FindingView> findings,
               StackTree waiting, StackTree holding) {
        this.analysis = analysis;
        this.threads = threads;
        this.lanes = lanes;
        this.findings = findings;
        this.waiting = waiting;
        this.holding = holding;
    }

    public Analysis analysis() {
        return analysis;
    }

    public Recording recording() {
        return analysis.recording();
    }

    /** The threads the report lists: those matching --threads, and every holder others waited for. */
    public List<ThreadView> threads() {
        return threads;
    }

    /** The timeline's lanes, in order: threads in contentions first (most involved first), then Kafka's, then the rest. */
    public List<ThreadView> lanes() {
        return lanes;
    }

    /** The top findings (--top), most important first, each with its moment. */
    public List<FindingView> findings() {
        return findings;
    }

    /** The top contended locks (--top), those lock events show first, by impact. */
    public List<Contention> contentions() {
        return top(analysis.contentions(), analysis.options().top());
    }

    /** The top locks (--top) that lock events show waited for (some of their waits may be inferred too). */
    public List<Contention> recordedContentions() {
        return top(analysis.contentions().stream().filter(c -> !c.inferredOnly()).toList(), analysis.options().top());
    }

    /** The top locks (--top) that only samples show waited for: estimates, listed apart. */
    public List<Contention> inferredContentions() {
        return top(analysis.contentions().stream().filter(Contention::inferredOnly).toList(), analysis.options().top());
    }

    /** Lock events in the recording (JFR's monitor enter and park, async-profiler's lock events). */
    public long lockEvents() {
        return analysis.sampling().lockEvents();
    }

    /** The stacks of the waiting threads, each weighted by how long it waited. */
    public StackTree waitingStacks() {
        return waiting;
    }

    /** What the holders were doing while others waited, weighted by the waits. */
    public StackTree holdingStacks() {
        return holding;
    }

    /** Whether a stack sits in a storage system call (write, fsync, sendfile, ...). */
    public boolean inStorageCall(int stack) {
        return analysis.classifier().io(stack).storage();
    }

    /** Per thread with samples in --from/--to (and matching --threads): its states, most sampled first. */
    public synchronized List<ThreadStates> threadStates() {
        if (states == null) states = ReportViews.states(this);
        return states;
    }

    static <T> List<T> top(List<T> l, int n) {
        return n > 0 && l.size() > n ? l.subList(0, n) : l;
    }
}
