package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** What was read from one input file. */
public final class SourceFile {
    public final int index;
    public final String path;
    public int chunks;
    public long startNanos = Long.MAX_VALUE;
    public long endNanos = Long.MIN_VALUE;
    /** Sampling period in nanoseconds, from the recording's settings or else from the samples themselves. */
    public long sampleIntervalNanos;
    /** async-profiler's sampling event ("cpu", "wall", ...), when the recording says. */
    public String profilerEvent;
    public final Set<String> producers = new TreeSet<>();
    public final List<String> warnings = new ArrayList<>();
    /** Events read per type name: what tests cross-check against a second parser. */
    public final TreeMap<String, Long> eventCounts = new TreeMap<>();

    public SourceFile(int index, String path) {
        this.index = index;
        this.path = path;
    }
}
