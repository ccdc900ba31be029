package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.analysis.findings.SafepointReport;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Span;

import java.util.Comparator;
import java.util.List;

/**
 * The result of analysing a recording: per-lock contentions, findings, and the waits with their holders
 * (all of them, or the longest {@link Analyzer#RETAINED_WAITS} (fewer when analysed window by window) in a huge recording; contentions count all),
 * and the slow safepoints with what held each up.
 */
public record Analysis(Recording recording, Options options, long[] intervals, StackClassifier classifier,
                       List<Wait> waits, List<Contention> contentions, List<Finding> findings, Sampling sampling,
                       SafepointReport safepoints) {

    /**
     * How much of the recording the analysis kept: a recording analysed in one piece keeps everything; a big one is
     * analysed window of chunks by window (see {@link StreamingAnalysis}), its totals still count everything, but
     * the waits kept as examples and the samples kept for evidence and the timeline are a bounded sample.
     *
     * @param windowed     whether the recording was analysed in windows (its samples and lock events dropped as it went)
     * @param windows      windows of chunks analysed one after the other
     * @param samples      samples read
     * @param sampleStride each thread's every this-th sample was kept (1: all)
     * @param lockEvents   lock events read
     * @param waits        waits counted in the contentions
     * @param perThread    samples read per thread id (null when all are kept: the lanes say)
     * @param ioEvents     I/O events read; those kept are {@code recording.io}
     * @param ioDroppedInRange I/O events in the report's range dropped after their window (the timeline's total counts them)
     */
    public record Sampling(boolean windowed, int windows, long samples, int sampleStride, long lockEvents, long waits, long[] perThread,
                           long ioEvents, long ioDroppedInRange) {
        /** Whether the kept waits and samples are a sample of what was read. */
        public boolean sampled() {
            return windowed;
        }
    }

    /** Samples of thread {@code id} read, kept or not. */
    public long samplesOf(int id) {
        if (sampling.perThread() == null) return recording.samples.lane(id).size();
        return id >= 0 && id < sampling.perThread().length ? sampling.perThread()[id] : 0;
    }

    /** "Class.method:line <- caller <- ..." for the top {@code depth} frames of a stack. */
    public String frames(int stack, int depth) {
        int[] f = recording.stacks.frames(stack);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < f.length && i < depth; i++) {
            if (i > 0) sb.append(" <- ");
            sb.append(recording.frames.label(f[i]));
        }
        return sb.toString();
    }

    /**
     * The agent's spans within --from/--to, in time order (all of them: automation may want every op). Here, not in
     * the JSON renderer: the text report reading them from there loaded Jackson, 0.1 s of a small report.
     */
    public List<Span> spansInView() {
        return recording.spans.stream().filter(s -> s.end() >= options.from() && s.start() <= options.to())
                .sorted(Comparator.comparingLong(Span::start).thenComparingInt(Span::thread)).toList();
    }

    public List<String> frameList(int stack, int depth) {
        int[] f = recording.stacks.frames(stack);
        return java.util.Arrays.stream(f).limit(depth).mapToObj(recording.frames::label).toList();
    }
}
