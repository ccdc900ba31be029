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
    public final Samples samples = new Samples();
    public final LockEvents locks;
    public final IoEvents io;
    public final List<Span> spans = new ArrayList<>();
    /** The agent's stallscope.LogDir events: which file system each broker's log dirs are on. */
    public final List<LogDir> logDirs = new ArrayList<>();
    /** The JVMs' safepoints (the JDK's safepoint events, the agent's stallscope.SafepointSync): whole-JVM stops. */
    public final Safepoints safepoints = new Safepoints();
    private final Map<ThreadKey, Integer> threadKeys = new HashMap<>();

    public Recording() {
        this(new LockEvents());
    }

    /** A recording whose lock events go to {@code locks}: a chunk's reader reuses the columns of an earlier chunk. */
    public Recording(LockEvents locks) {
        this(locks, new IoEvents());
    }

    /** A recording whose lock and I/O events go to columns an earlier chunk's reader used. */
    public Recording(LockEvents locks, IoEvents io) {
        this.locks = locks;
        this.io = io;
    }

    /**
     * The thread of {@code file} known by Java id, else OS id, else name: that is how a jfrsync file's JDK
     * chunk and async-profiler chunk (which number threads differently) land on the same lane.
     */
    public int thread(int file, String name, long javaId, long osId) {
        ThreadKey key = javaId > 0 ? new ThreadKey(file, 'j', javaId, null) : osId > 0 ? new ThreadKey(file, 'o', osId, null)
                : new ThreadKey(file, 'n', 0, name);
        ThreadKey byOs = osId > 0 ? new ThreadKey(file, 'o', osId, null) : null;
        Integer id = threadKeys.get(key);
        if (id == null && osId > 0 && javaId > 0) id = threadKeys.get(byOs);
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
        if (byOs != null) threadKeys.putIfAbsent(byOs, n);
        return n;
    }

    /** A thread's identity in a file: by Java id ('j'), OS id ('o') or name ('n'). */
    private record ThreadKey(int file, char kind, long id, String name) {
        // Written out: a record's generated equals and hashCode are method-handle chains that C2 inlines into every
        // map lookup that uses them, which made compiling those lookups cost more than running them.
        @Override
        public boolean equals(Object o) {
            return o instanceof ThreadKey k && k.file == file && k.kind == kind && k.id == id && java.util.Objects.equals(k.name, name);
        }

        @Override
        public int hashCode() {
            return ((file * 31 + kind) * 31 + Long.hashCode(id)) * 31 + (name == null ? 0 : name.hashCode());
        }
    }

    /**
     * Gives the threads of {@code file} that share a name a suffix that tells them apart, jstack's Java id
     * ({@code " #42"}) or else the OS id ({@code " tid 4711"}): a KRaft broker in combined mode runs two request
     * handler pools with the same thread names (the broker's and the controller's), a native thread's name is the
     * kernel's, cut to 15 characters ({@code "GC task thread#"}), and a pool may replace a thread under the same name. Without
     * it, "held by data-plane-kafka-request-handler-4" could be either thread.
     */
    public void distinguishSharedNames(int file) {
        Map<String, Integer> seen = new HashMap<>();
        for (ThreadInfo t : threads) {
            if (t.file() == file) seen.merge(t.name(), 1, Integer::sum);
        }
        for (int i = 0; i < threads.size(); i++) {
            ThreadInfo t = threads.get(i);
            if (t.file() != file || seen.get(t.name()) < 2) continue;
            String suffix = t.javaId() > 0 ? " #" + t.javaId() : t.osId() > 0 ? " tid " + t.osId() : " (" + t.id() + ")";
            threads.set(i, new ThreadInfo(t.id(), t.file(), t.name() + suffix, t.javaId(), t.osId()));
        }
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
