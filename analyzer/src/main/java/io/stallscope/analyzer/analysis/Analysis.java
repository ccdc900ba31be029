package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.model.Recording;

import java.util.List;

/**
 * The result of analysing a recording: per-lock contentions, findings, and the waits with their holders
 * (all of them, or the longest {@link Analyzer#RETAINED_WAITS} in a huge recording; contentions count all).
 */
public record Analysis(Recording recording, Options options, long[] intervals, StackClassifier classifier,
                       List<Wait> waits, List<Contention> contentions, List<Finding> findings) {

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

    public List<String> frameList(int stack, int depth) {
        int[] f = recording.stacks.frames(stack);
        return java.util.Arrays.stream(f).limit(depth).mapToObj(recording.frames::label).toList();
    }
}
