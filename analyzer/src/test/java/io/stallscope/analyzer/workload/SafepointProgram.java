package io.stallscope.analyzer.workload;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Timestamp;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Real long times to safepoint without a slow disk. Run with {@code -XX:+UnlockDiagnosticVMOptions
 * -XX:-UseCountedLoopSafepoints -XX:LoopStripMiningIter=0}: C2 then compiles {@link #spin}'s counted loop with no
 * safepoint poll inside, so while a thread is in it every safepoint the JVM asks for waits for the loop to end (on
 * JDK 17: 150-300 ms here). A requester thread asks for one every 20 ms ({@code Thread.getAllStackTraces()}, a
 * ThreadDump VM operation); every other thread stops and waits.
 *
 * <p>The holder, named like a request handler, runs loops of three kinds, in turn, 100 ms apart:
 * <ul>
 *   <li>{@code plain}: nothing but the loop; only samples can tell who held the safepoint up;</li>
 *   <li>{@code span}: the loop timed as an agent-shaped {@code stallscope.IndexLookup} op (op {@code index_lookup},
 *       an index's path), committed when it ends as the agent's OpRecorder does: a recorded span covering the sync;</li>
 *   <li>{@code agent}: the same span, and the sync reported by an agent-shaped {@code stallscope.SafepointSync} naming
 *       the thread, op and path in its behind fields, as the agent pairs them.</li>
 * </ul>
 * Like the agent, the program learns of each safepoint from an in-process JFR stream of the JVM's own events (about
 * a second late), and commits a {@code stallscope.SafepointSync} for each sync of 50 ms or more from another thread
 * (JFR records nothing committed on a stream's own thread): paired (behind fields set) when the sync fell in an
 * {@code agent} loop, unpaired (null) otherwise. The event classes copy the agent's
 * ({@code io.stallscope.agent.safepoint.SafepointSyncEvent}, {@code io.stallscope.agent.report.jfr.OpEventField})
 * field for field: names, types, {@code @Timestamp}/{@code @Timespan} units.
 *
 * <p>Mode {@code control}: the same requester and holder thread, but short loops (a few ms): no slow safepoint.
 * Ground truth: one line per loop, {@code thread kind start end} (epoch ns).
 *
 * <p>Args: {@code mode seconds workDir groundTruthFile}
 */
public final class SafepointProgram {
    static final String HOLDER = "data-plane-kafka-request-handler-0";
    static final String INDEX = "/var/lib/kafka/data/orders-0/00000000000000000000.index";
    static final long SLOW_NANOS = 50_000_000L;

    @Name("stallscope.SafepointSync")
    @Label("Slow Safepoint Sync")
    @Category({"Stallscope", "Safepoint"})
    @Description("A safepoint whose synchronization took at least slow.threshold.safepoint_sync")
    @StackTrace(false)
    static final class SafepointSyncEvent extends Event {
        @Label("Safepoint Id")
        public long safepointId;

        @Label("VM Operation")
        public String operation;

        @Label("Sync Start")
        @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH)
        public long syncStart;

        @Label("Sync Time")
        @Timespan(Timespan.NANOSECONDS)
        public long syncTime;

        @Label("Running At Start")
        public int runningAtStart;

        @Label("Threads")
        public int threads;

        @Label("Behind Thread")
        public String behindThread;

        @Label("Behind Op")
        public String behindOp;

        @Label("Behind Path")
        public String behindPath;
    }

    /** The agent's op fields as AgentOpsProgram declares them, and the "behind" fields the agent adds. */
    @Name("stallscope.IndexLookup")
    @Label("Index Lookup")
    static final class IndexLookup extends AgentOpsProgram.BehindOpEvent {
    }

    /** One loop: its kind and when it ran (epoch ns). */
    record Loop(String kind, long start, long end) {
    }

    static final List<Loop> LOOPS = new CopyOnWriteArrayList<>();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        boolean control = args[0].equals("control");
        // The control shows no slow safepoint in half the time.
        long seconds = Long.parseLong(args[1]) / (control ? 2 : 1);
        Path truth = Paths.get(args[3]);
        Files.createDirectories(Paths.get(args[2])); // the work dir the recorder clears after: nothing is written to it
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        // Compiled by C2 before the first timed loop, so no loop runs interpreted (the interpreter polls).
        for (int i = 0; i < 20_000; i++) sink += spin(10_000);
        int count = calibrate(control ? 3 : 200);
        // The event classes loaded and registered now: the first commit after a loop took 20 ms more for it, which
        // put the op's span (it ends at the commit) 20 ms after the loop.
        new IndexLookup();
        new SafepointSyncEvent();

        ExecutorService committer = Executors.newSingleThreadExecutor(r -> new Thread(r, "stallscope-safepoint-lines"));
        RecordingStream stream = agentLikeStream(committer);
        stream.startAsync();
        Thread requester = new Thread(() -> {
            while (System.nanoTime() < deadline) {
                Thread.getAllStackTraces();
                sleep(20);
            }
        }, "safepoint-requester");
        Thread holder = new Thread(() -> {
            String[] kinds = {"plain", "span", "agent"};
            for (int k = 0; System.nanoTime() < deadline; k++) {
                String kind = kinds[k % kinds.length];
                long from = ContentionProgram.epochNanos();
                long t0 = System.nanoTime();
                sink += spin(count);
                long d = System.nanoTime() - t0;
                long to = ContentionProgram.epochNanos();
                if (!control && !kind.equals("plain")) commitLookup(d);
                LOOPS.add(new Loop(kind, from, to));
                sleep(100);
            }
        }, HOLDER);
        requester.start();
        holder.start();
        requester.join();
        holder.join();
        // The stream hands events on about once a second: wait for the last ones, then for their commits.
        Thread.sleep(1500);
        stream.close();
        committer.shutdown();
        committer.awaitTermination(5, TimeUnit.SECONDS);
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(truth))) {
            for (Loop l : LOOPS) w.println(HOLDER + "\t" + l.kind() + "\t" + l.start() + "\t" + l.end());
        }
    }

    /** A counted int loop: with the flags above, C2 leaves no safepoint poll in it. */
    static long spin(int n) {
        long s = 0;
        for (int i = 0; i < n; i++) s += (i * 31L) ^ (s >>> 3);
        return s;
    }

    /** The loop count that takes about {@code millis} ms on this machine now. */
    static int calibrate(long millis) {
        int n = 1_000_000;
        long t0 = System.nanoTime();
        sink += spin(n);
        long d = Math.max(1, System.nanoTime() - t0);
        return (int) Math.max(1000, Math.min(Integer.MAX_VALUE, n * (millis * 1_000_000.0 / d)));
    }

    static void commitLookup(long nanos) {
        IndexLookup e = new IndexLookup();
        if (!e.isEnabled()) return;
        e.op = "index_lookup";
        e.opDuration = nanos;
        e.threadRole = "request_handler";
        e.topic = "orders";
        e.partition = 0;
        e.path = INDEX;
        e.commit();
    }

    /**
     * The JVM's safepoint events, as the agent's SafepointStream reads them: each sync of 50 ms or more becomes a
     * stallscope.SafepointSync once its VM operation is known, paired when an {@code agent} loop covers it.
     */
    static RecordingStream agentLikeStream(ExecutorService committer) {
        RecordingStream rs = new RecordingStream();
        rs.enable("jdk.SafepointBegin").withThreshold(Duration.ZERO);
        rs.enable("jdk.SafepointStateSynchronization").withThreshold(Duration.ZERO);
        rs.enable("jdk.ExecuteVMOperation").withThreshold(Duration.ZERO);
        Map<Long, RecordedEvent> syncs = new ConcurrentHashMap<>();
        Map<Long, Integer> threads = new ConcurrentHashMap<>();
        rs.onEvent("jdk.SafepointBegin", e -> threads.put(e.getLong("safepointId"), e.getInt("totalThreadCount")));
        rs.onEvent("jdk.SafepointStateSynchronization", e -> {
            if (e.getDuration().toNanos() >= SLOW_NANOS) syncs.put(e.getLong("safepointId"), e);
        });
        rs.onEvent("jdk.ExecuteVMOperation", e -> {
            RecordedEvent sync = syncs.remove(e.getLong("safepointId"));
            if (sync == null) return;
            String op = e.getString("operation");
            long start = sync.getStartTime().getEpochSecond() * 1_000_000_000L + sync.getStartTime().getNano();
            long nanos = sync.getDuration().toNanos();
            int total = threads.getOrDefault(sync.getLong("safepointId"), -1);
            committer.execute(() -> commitSync(sync.getLong("safepointId"), op, start, nanos, sync.getInt("initialThreadCount"), total));
        });
        return rs;
    }

    static void commitSync(long id, String op, long start, long nanos, int running, int threads) {
        SafepointSyncEvent e = new SafepointSyncEvent();
        e.safepointId = id;
        e.operation = op;
        e.syncStart = start / 1_000_000L;
        e.syncTime = nanos;
        e.runningAtStart = running;
        e.threads = threads;
        for (Loop l : LOOPS) {
            if (l.kind().equals("agent") && l.start() <= start && l.end() >= start + nanos) {
                e.behindThread = HOLDER;
                e.behindOp = "index_lookup";
                e.behindPath = INDEX;
            }
        }
        e.commit();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
