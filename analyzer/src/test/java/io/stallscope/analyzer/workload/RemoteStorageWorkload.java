package io.stallscope.analyzer.workload;

import jdk.jfr.Name;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's tiered-storage events from a plain program in the test's own JVM, committed the way the agent commits
 * them (docs/tiered-storage.md): a remote read handed to a remote-log-reader pool (a real {@link ThreadPoolExecutor} of
 * {@link #POOL_THREADS} threads named as Kafka names them) waits in its queue, and the pool thread that takes it up
 * commits its {@code stallscope.RemoteQueueWait} (path {@code remote:TOPIC-PARTITION}) and then, when the read ends,
 * its {@code stallscope.RemoteRead}; a request handler's lookup commits the plugin's calls it makes, nested as they
 * run. The event classes copy the agent's fields ({@code OpEventField}) with its behind fields; a queue wait of
 * {@link #SLOW_NANOS} or more (the agent's default slow.threshold: only a slow op is paired) names, as the agent's
 * OverlapRanking does, the remote read with the longest overlap among those that held a pool thread for
 * {@link #MIN_OVERLAP_NANOS} of its wait, a read that began during it too.
 * Every op is kept as it ran ({@link Op}, System.nanoTime), the test's ground truth.
 */
final class RemoteStorageWorkload implements AutoCloseable {
    static final int POOL_THREADS = 2;
    static final String POOL_PREFIX = "remote-log-reader";
    static final long SLOW_NANOS = 100_000_000L;
    static final long MIN_OVERLAP_NANOS = 1_000_000L;

    @Name("stallscope.RemoteQueueWait")
    static final class RemoteQueueWait extends AgentOpsProgram.BehindOpEvent {
    }

    @Name("stallscope.RemoteRead")
    static final class RemoteRead extends AgentOpsProgram.BehindOpEvent {
    }

    @Name("stallscope.RemoteFetch")
    static final class RemoteFetch extends AgentOpsProgram.BehindOpEvent {
    }

    @Name("stallscope.RemoteFetchIndex")
    static final class RemoteFetchIndex extends AgentOpsProgram.BehindOpEvent {
    }

    @Name("stallscope.RemoteIndexLoad")
    static final class RemoteIndexLoad extends AgentOpsProgram.BehindOpEvent {
    }

    static final List<Class<? extends jdk.jfr.Event>> EVENTS = List.of(RemoteQueueWait.class, RemoteRead.class, RemoteFetch.class,
            RemoteFetchIndex.class, RemoteIndexLoad.class);

    /**
     * One op as it ran: {@code recorded} whether its event was committed; {@code behindThread} the thread of the read a
     * queue wait's event names (null: none).
     */
    record Op(String scenario, String thread, String op, String partition, long start, long end, boolean recorded, String behindThread) {
        long nanos() {
            return end - start;
        }
    }

    /** A remote read, for the pairing of the waits it overlapped; {@code end} 0 while it runs. */
    private static final class Read {
        final String thread;
        final long start;
        volatile long end;

        Read(String thread, long start) {
            this.thread = thread;
            this.start = start;
        }
    }

    final List<Op> ops = Collections.synchronizedList(new ArrayList<>());
    private final List<Read> reads = Collections.synchronizedList(new ArrayList<>());
    private final ThreadPoolExecutor pool;
    private final List<Future<?>> submitted = new ArrayList<>();

    RemoteStorageWorkload() {
        AtomicInteger n = new AtomicInteger();
        pool = new ThreadPoolExecutor(POOL_THREADS, POOL_THREADS, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                r -> new Thread(r, POOL_PREFIX + n.getAndIncrement()));
        pool.prestartAllCoreThreads();
    }

    /**
     * Hands a read of {@code topic-partition} to the pool, as RemoteLogManager.asyncRead does: it runs {@code millis},
     * with a remote_fetch of {@code fetchMillis} inside (0: none); its RemoteRead is committed unless {@code recorded}
     * is false (shorter than the agent's jfr.threshold.remote_read, say).
     */
    void read(String scenario, String topic, int partition, long millis, long fetchMillis, boolean recorded) {
        long queued = System.nanoTime();
        submitted.add(pool.submit(() -> run(scenario, topic, partition, queued, millis, fetchMillis, recorded)));
    }

    /** Occupies a pool thread for {@code millis} with no event at all. */
    void untimed(long millis) {
        submitted.add(pool.submit(() -> sleep(millis)));
    }

    /**
     * Commits one event of each type on each pool thread and on the calling thread, of a partition of its own ({@code
     * warm-up}, no wait): the first commit of an event type took tens of milliseconds here, and the span, which ends
     * at the commit, moved as far.
     */
    void warmUp() throws Exception {
        Runnable each = () -> {
            for (AgentOpsProgram.BehindOpEvent e : List.of(new RemoteQueueWait(), new RemoteRead(), new RemoteFetch(), new RemoteFetchIndex(), new RemoteIndexLoad())) {
                commit(e, "warm_up", 0, "other", "warm-up", 0, "remote:warm-up-0");
            }
        };
        for (int i = 0; i < POOL_THREADS; i++) submitted.add(pool.submit(() -> {
            each.run();
            sleep(20); // so that each pool thread takes one
        }));
        each.run();
        drain();
    }

    /** Waits for every read handed over so far. */
    void drain() throws Exception {
        for (Future<?> f : submitted) f.get(30, TimeUnit.SECONDS);
        submitted.clear();
    }

    private void run(String scenario, String topic, int partition, long queued, long millis, long fetchMillis, boolean recorded) {
        long start = System.nanoTime();
        String me = Thread.currentThread().getName();
        String tp = topic + "-" + partition;
        RemoteQueueWait wait = new RemoteQueueWait();
        Read culprit = null;
        long culpritOverlap = 0;
        if (start - queued >= SLOW_NANOS) {
            synchronized (reads) {
                for (Read r : reads) {
                    long end = r.end == 0 ? start : r.end;
                    long overlap = Math.min(end, start) - Math.max(r.start, queued);
                    // whenever it began (queued ahead, it took a thread this read needed); the longest overlap, the
                    // earliest read on a tie
                    if (overlap >= MIN_OVERLAP_NANOS && overlap > culpritOverlap) {
                        culprit = r;
                        culpritOverlap = overlap;
                    }
                }
            }
        }
        if (culprit != null) {
            wait.behindOp = "remote_read";
            wait.behindThread = culprit.thread;
            wait.behindOverlapMs = culpritOverlap / 1_000_000L;
            wait.scope = "pool";
        }
        commit(wait, "remote_queue_wait", start - queued, "other", topic, partition, "remote:" + tp);
        ops.add(new Op(scenario, me, "remote_queue_wait", tp, queued, start, true, culprit == null ? null : culprit.thread));

        Read read = new Read(me, start);
        reads.add(read);
        if (fetchMillis > 0) {
            sleep((millis - fetchMillis) / 2);
            fetch(scenario, new RemoteFetch(), "remote_fetch", fetchMillis, "other", topic, partition, segment(tp) + ".log");
            sleep(millis - fetchMillis - (millis - fetchMillis) / 2);
        } else {
            sleep(millis);
        }
        long end = System.nanoTime();
        read.end = end;
        if (recorded) commit(new RemoteRead(), "remote_read", end - start, "other", topic, partition, "remote:" + tp);
        ops.add(new Op(scenario, me, "remote_read", tp, start, end, recorded, null));
    }

    /**
     * A timestamp lookup in the remote tier on a request handler, as Kafka 3.6-3.9 runs it (KAFKA-15859): the remote
     * index cache's load, with one fetchIndex per index type inside it, then the plugin's fetchLogSegment. Runs on the
     * calling thread.
     */
    void lookup(String scenario, String topic, int partition, long[] fetchIndexMillis, long loadOwnMillis, long fetchMillis) {
        String tp = topic + "-" + partition;
        long start = System.nanoTime();
        String[] suffixes = {".index", ".timeindex", ".txnindex"};
        for (int i = 0; i < fetchIndexMillis.length; i++) {
            fetch(scenario, new RemoteFetchIndex(), "remote_fetch_index", fetchIndexMillis[i], "request_handler", topic, partition,
                    segment(tp) + suffixes[i % suffixes.length]);
        }
        sleep(loadOwnMillis);
        long loaded = System.nanoTime();
        commit(new RemoteIndexLoad(), "remote_index_load", loaded - start, "request_handler", topic, partition, segment(tp) + ".log");
        ops.add(new Op(scenario, Thread.currentThread().getName(), "remote_index_load", tp, start, loaded, true, null));
        if (fetchMillis > 0) fetch(scenario, new RemoteFetch(), "remote_fetch", fetchMillis, "request_handler", topic, partition, segment(tp) + ".log");
    }

    /** One of the plugin's calls, timed as the agent times it on Kafka's ClassLoaderAwareRemoteStorageManager. */
    void fetch(String scenario, AgentOpsProgram.BehindOpEvent e, String op, long millis, String role, String topic, int partition, String path) {
        long start = System.nanoTime();
        sleep(millis);
        long end = System.nanoTime();
        commit(e, op, end - start, role, topic, partition, path);
        ops.add(new Op(scenario, Thread.currentThread().getName(), op, topic + "-" + partition, start, end, true, null));
    }

    /** A remote segment's path as the agent names it: the partition, the base offset in 20 digits and the segment id. */
    private static String segment(String tp) {
        return "remote:" + tp + "/00000000000000000000-Q4BxAhm9RQuS_BDBdKf4dQ";
    }

    /** As the agent's OpRecorder.commit: the fields, then commit at the op's end; behind fields as already set. */
    private static void commit(AgentOpsProgram.BehindOpEvent e, String op, long nanos, String role, String topic, int partition, String path) {
        if (!e.isEnabled()) return;
        e.op = op;
        e.opDuration = nanos;
        e.threadRole = role;
        e.topic = topic;
        e.partition = partition;
        e.bytes = -1;
        e.path = path;
        e.failed = false;
        e.commit();
    }

    static void sleep(long millis) {
        if (millis <= 0) return;
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    List<Op> of(String scenario, String op) {
        synchronized (ops) {
            return ops.stream().filter(o -> o.scenario().equals(scenario) && o.op().equals(op)).toList();
        }
    }

    @Override
    public void close() throws InterruptedException {
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
    }
}
