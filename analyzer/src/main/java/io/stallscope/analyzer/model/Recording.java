package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Everything read from one or more files, with times in epoch nanoseconds. */
public final class Recording {
    public final List<SourceFile> files = new ArrayList<>();
    public final List<ThreadInfo> threads = new ArrayList<>();
    public final Frames frames = new Frames();
    public final Stacks stacks = new Stacks();
    public final Samples samples;
    public final List<LockEvent> locks = new ArrayList<>();
    public final List<IoEvent> io = new ArrayList<>();
    public final List<Span> spans = new ArrayList<>();
    private final Map<String, Integer> threadKeys = new HashMap<>();

    public Recording() {
        this(new Samples());
    }

    private Recording(Samples samples) {
        this.samples = samples;
    }

    /** What one chunk read on its own holds, to be merged into the whole recording after: samples in arrival order. */
    public static Recording ofOneChunk() {
        return new Recording(Samples.inArrivalOrder());
    }

    /**
     * The thread of {@code file} known by Java id, else OS id, else name: that is how a jfrsync file's JDK
     * chunk and async-profiler chunk (which number threads differently) land on the same lane.
     */
    public int thread(int file, String name, long javaId, long osId) {
        String key = javaId > 0 ? file + "j" + javaId : osId > 0 ? file + "o" + osId : file + "n" + name;
        Integer id = threadKeys.get(key);
        if (id == null && osId > 0 && javaId > 0) id = threadKeys.get(file + "o" + osId);
        if (id != null) {
            ThreadInfo t = threads.get(id);
            if ((t.name() == null || t.name().isEmpty()) && name != null) {
                threads.set(id, new ThreadInfo(id, file, name, Math.max(javaId, t.javaId()), Math.max(osId, t.osId())));
            }
            threadKeys.putIfAbsent(key, id);
            return id;
        }
        int n = threads.size();
        threads.add(new ThreadInfo(n, file, name == null ? "thread-" + (javaId > 0 ? javaId : osId) : name, javaId, osId));
        threadKeys.put(key, n);
        if (osId > 0) threadKeys.putIfAbsent(file + "o" + osId, n);
        return n;
    }

    public String threadName(int id) {
        return id < 0 || id >= threads.size() ? "?" : threads.get(id).name();
    }

    public long startNanos() {
        return files.stream().mapToLong(f -> f.startNanos).min().orElse(0);
    }

    public long endNanos() {
        return files.stream().mapToLong(f -> f.endNanos).max().orElse(0);
    }
}
