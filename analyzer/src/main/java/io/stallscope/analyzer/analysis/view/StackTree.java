package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.model.Frames;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stacks merged from the outermost frame in, weighted by time: the tree a flame graph draws. Frames are merged by
 * method (without the line), as flame graphs do, so one method is one box however many lines were sampled.
 */
public final class StackTree {
    private final String name;
    private long nanos;
    private final Map<String, StackTree> children = new LinkedHashMap<>();

    public StackTree(String name) {
        this.name = name;
    }

    /** Adds a stack (innermost frame first, as recorded) that lasted {@code nanos}. */
    public void add(int[] frames, Frames names, long nanos) {
        this.nanos += nanos;
        StackTree node = this;
        for (int i = frames.length - 1; i >= 0; i--) {
            node = node.children.computeIfAbsent(names.name(frames[i]), StackTree::new);
            node.nanos += nanos;
        }
    }

    public String name() {
        return name;
    }

    public long nanos() {
        return nanos;
    }

    /** Children heaviest first, without those under {@code minNanos} (they would be thinner than a pixel). */
    public List<StackTree> children(long minNanos) {
        List<StackTree> l = new ArrayList<>();
        for (StackTree c : children.values()) {
            if (c.nanos >= minNanos) l.add(c);
        }
        l.sort(Comparator.comparingLong(StackTree::nanos).reversed().thenComparing(StackTree::name));
        return l;
    }
}
