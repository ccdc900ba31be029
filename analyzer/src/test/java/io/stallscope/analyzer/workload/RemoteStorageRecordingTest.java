package io.stallscope.analyzer.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.cli.Main;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The tiered-storage findings on a recording this test makes in its own JVM with JDK Flight Recorder, of the agent's
 * remote events as {@link RemoteStorageWorkload} commits them (a real two-thread reader pool named as Kafka's, request
 * handler threads running a lookup's plugin calls), checked against the workload's own log of every op. The scenarios
 * run one after the other, 300 ms apart, each read in its own window ({@code --from}/{@code --to}) and all together:
 * <ul>
 * <li>{@code saturated}: two 300 ms reads of orders-7 take both pool threads, and 40 ms later eight 10 ms reads of
 * orders-0..3 queue behind them, each wait long enough for the agent's pairing (behind fields); those of the eight
 * that take a thread while others still queue hold the pool too;</li>
 * <li>{@code inferred}: two 70 ms reads of orders-5 and, 30 ms later, three reads of orders-6 that wait under the slow
 * threshold (no behind fields), the third behind the first ones of orders-6 too;</li>
 * <li>{@code control}: both pool threads busy with work that commits no event while a read of orders-8 queues (its
 * own read runs after its wait, never its holder);</li>
 * <li>{@code unseen}: two reads of orders-9 (300 and 200 ms) whose RemoteRead events are not committed hold the pool
 * while two reads of orders-10 wait long enough to be paired: only the waits' behind fields name them; the first
 * read of orders-10 holds the second's wait too;</li>
 * <li>{@code lookup}: two handlers at once, one a lookup with an index load and its fetchIndex calls then a
 * fetchLogSegment on orders-4, the other a lone 150 ms fetchLogSegment on orders-2.</li>
 * </ul>
 * And {@code local.jfr}: local ops only (a records_append, a 120 ms segment_flush). One recording for the remote
 * scenarios, not one each: JDK 17's Flight Recorder writes a string of 16 characters or more that an earlier recording
 * of the same JVM wrote from other threads as a constant the new file lacks, and it reads back null
 * ("remote_queue_wait" did, in a second recording).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RemoteStorageRecordingTest {
    private static final String SATURATED = "saturated", INFERRED = "inferred", CONTROL = "control", UNSEEN = "unseen",
            LOOKUP = "lookup", FETCH = "fetch";
    private static final String HANDLER_LOOKUP = "data-plane-kafka-request-handler-3";
    private static final String HANDLER_FETCH = "data-plane-kafka-request-handler-5";
    private static final long MARGIN_NANOS = 100_000_000L;
    /**
     * From the holders' reads to the reads queued behind them: longer than a pool thread takes to wake for a holder's
     * read (16 ms once here), so the holders' own short waits are never part of the burst.
     */
    private static final long GAP_MS = 40;
    /** The partition each scenario's first reads, which took the pool, are of ({@code control}'s work is no read). */
    private static final Map<String, String> HOLDERS = Map.of(SATURATED, "orders-7", INFERRED, "orders-5", CONTROL, "none", UNSEEN, "orders-9");

    private RemoteStorageWorkload remote;
    private Recording recording;
    private Analysis remoteAnalysis;
    /** Each scenario's window, epoch ns. */
    private final Map<String, long[]> windows = new java.util.HashMap<>();
    private Analysis localAnalysis;
    private String text;
    private JsonNode json;
    private String html;

    @BeforeAll
    void record() throws Exception {
        Path remoteJfr = Recorder.workDir().resolve("remote.jfr");
        remote = new RemoteStorageWorkload();
        recordTo(remoteJfr, () -> {
            scenario("warm-up", remote::warmUp);
            scenario(SATURATED, () -> {
                for (int i = 0; i < 2; i++) remote.read(SATURATED, "orders", 7, 300, 250, true);
                RemoteStorageWorkload.sleep(GAP_MS);
                for (int i = 0; i < 8; i++) remote.read(SATURATED, "orders", i % 4, 10, 0, true);
                remote.drain();
            });
            scenario(INFERRED, () -> {
                // short enough that neither the reads nor the waits are slow ops: no behind fields, no slow-op
                for (int i = 0; i < 2; i++) remote.read(INFERRED, "orders", 5, 70, 0, true);
                RemoteStorageWorkload.sleep(30);
                for (int i = 0; i < 3; i++) remote.read(INFERRED, "orders", 6, 5, 0, true);
                remote.drain();
            });
            scenario(CONTROL, () -> {
                for (int i = 0; i < 2; i++) remote.untimed(60);
                // one read: a second would wait for the first one's thread, and the first would be its holder
                remote.read(CONTROL, "orders", 8, 5, 0, true);
                remote.drain();
            });
            scenario(UNSEEN, () -> {
                remote.read(UNSEEN, "orders", 9, 300, 0, false);
                remote.read(UNSEEN, "orders", 9, 200, 0, false);
                RemoteStorageWorkload.sleep(GAP_MS);
                for (int i = 0; i < 2; i++) remote.read(UNSEEN, "orders", 10, 5, 0, true);
                remote.drain();
            });
            scenario(LOOKUP, () -> {
                Thread lookup = new Thread(() -> remote.lookup(LOOKUP, "orders", 4, new long[] {30, 30, 30}, 10, 40), HANDLER_LOOKUP);
                Thread fetch = new Thread(() -> remote.fetch(FETCH, new RemoteStorageWorkload.RemoteFetch(), "remote_fetch", 150,
                        "request_handler", "orders", 2, "remote:orders-2/00000000000000000000-Q4BxAhm9RQuS_BDBdKf4dQ.log"), HANDLER_FETCH);
                lookup.start();
                fetch.start();
                lookup.join();
                fetch.join();
            });
        });
        remote.close();
        recording = new Recording();
        JfrFileReader.read(remoteJfr, recording, null);
        remoteAnalysis = Analyzer.analyze(recording, Options.defaults());

        Path localJfr = Recorder.workDir().resolve("local.jfr");
        recordTo(localJfr, () -> {
            long t0 = System.nanoTime();
            RemoteStorageWorkload.sleep(5);
            AgentOpsProgram.commit(new AgentOpsProgram.RecordsAppend(), "records_append", System.nanoTime() - t0, "request_handler", 0, 1024,
                    "/local/orders-0/00000000000000000000.log");
            long t1 = System.nanoTime();
            RemoteStorageWorkload.sleep(120);
            AgentOpsProgram.commit(new AgentOpsProgram.SegmentFlush(), "segment_flush", System.nanoTime() - t1, "scheduler", 0, -1,
                    "/local/orders-0/00000000000000000000.log");
        });
        Recording local = new Recording();
        JfrFileReader.read(localJfr, local, null);
        localAnalysis = Analyzer.analyze(local, Options.defaults());

        Path jsonFile = remoteJfr.resolveSibling("remote.json");
        Path htmlFile = remoteJfr.resolveSibling("remote.html");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"report", remoteJfr.toString(), "--json", jsonFile.toString(), "--html", htmlFile.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
        text = out.toString(StandardCharsets.UTF_8);
        json = new ObjectMapper().readTree(jsonFile.toFile());
        html = Files.readString(htmlFile);
    }

    interface Work {
        void run() throws Exception;
    }

    /** Runs one scenario, keeping its window, and leaves the pool idle for 300 ms after it. */
    private void scenario(String name, Work work) throws Exception {
        long from = ContentionProgram.epochNanos();
        work.run();
        windows.put(name, new long[] {from - MARGIN_NANOS, ContentionProgram.epochNanos() + MARGIN_NANOS});
        RemoteStorageWorkload.sleep(300);
    }

    /** The analysis of one scenario's window, as {@code --from}/{@code --to} select it. */
    private Analysis window(String scenario) {
        long[] w = windows.get(scenario);
        return Analyzer.analyze(recording, new Options(null, w[0], w[1], 0, 10));
    }

    private static void recordTo(Path jfr, Work work) throws Exception {
        Files.deleteIfExists(jfr);
        try (jdk.jfr.Recording r = new jdk.jfr.Recording()) {
            for (Class<? extends jdk.jfr.Event> e : RemoteStorageWorkload.EVENTS) r.enable(e).withThreshold(Duration.ZERO);
            r.enable(AgentOpsProgram.RecordsAppend.class).withThreshold(Duration.ZERO);
            r.enable(AgentOpsProgram.SegmentFlush.class).withThreshold(Duration.ZERO);
            r.start();
            work.run();
            r.stop();
            r.dump(jfr);
        }
    }

    private static List<Finding> of(Analysis a, String kind) {
        return a.findings().stream().filter(f -> f.kind().equals(kind)).toList();
    }

    /** The pool finding whose queued reads are those of {@code scenario} that queued behind others. */
    private static Finding burst(Analysis a, RemoteStorageWorkload w, String scenario) {
        List<String> partitions = queued(w, scenario).stream().map(RemoteStorageWorkload.Op::partition).distinct().sorted().toList();
        return of(a, Finding.REMOTE_READER_POOL_SATURATED).stream().filter(f -> f.details().get("queuedPartitions").equals(partitions))
                .findFirst().orElseThrow(() -> new AssertionError("no burst of " + partitions + " in " + a.findings()));
    }

    /**
     * The waits of the reads of {@code scenario} handed over while others held the pool: not those of the holders,
     * which found a pool thread free (they waited for its wake-up, a millisecond or so on a busy machine).
     */
    private static List<RemoteStorageWorkload.Op> queued(RemoteStorageWorkload w, String scenario) {
        String holders = HOLDERS.get(scenario);
        return w.of(scenario, "remote_queue_wait").stream().filter(o -> !o.partition().equals(holders)).toList();
    }

    /**
     * The recorded reads of {@code scenario} that held a pool thread for 1 ms and {@code marginNanos} more (less, when
     * negative) of one of its queued waits, by the workload's own log.
     */
    private static List<RemoteStorageWorkload.Op> overlapping(RemoteStorageWorkload w, String scenario, long marginNanos) {
        List<RemoteStorageWorkload.Op> waits = queued(w, scenario);
        return w.of(scenario, "remote_read").stream().filter(r -> r.recorded() && waits.stream().anyMatch(q ->
                Math.min(r.end(), q.end()) - Math.max(r.start(), q.start()) >= RemoteStorageWorkload.MIN_OVERLAP_NANOS + marginNanos)).toList();
    }

    /**
     * The finding's holders with a span are the reads of {@code scenario} that held a pool thread for 1 ms of a queued
     * wait, whenever they began: every one over it by 0.1 ms, none under it by 0.1 ms (an event's commit moves its span
     * by microseconds).
     */
    private static void assertHoldersAreTheReadsThatOverlappedAWait(Finding f, RemoteStorageWorkload w, String scenario) {
        List<Map<String, Object>> spans = holders(f).stream().filter(h -> h.get("durationMs") != null).toList();
        List<RemoteStorageWorkload.Op> surely = overlapping(w, scenario, 100_000L), maybe = overlapping(w, scenario, -100_000L);
        assertThat(surely).isNotEmpty();
        assertThat(spans.size()).isBetween(surely.size(), maybe.size());
        assertThat(spans).allSatisfy(h -> assertThat(maybe).anySatisfy(o -> assertThat(same(h, o)).as("%s is %s", h, o).isTrue()));
        assertThat(surely).allSatisfy(o -> assertThat(spans).anySatisfy(h -> assertThat(same(h, o)).as("%s is %s", h, o).isTrue()));
    }

    /** A holder in the JSON details and a read of the log: its thread, partition and duration. */
    private static boolean same(Map<String, Object> h, RemoteStorageWorkload.Op o) {
        return h.get("thread").equals(o.thread()) && (h.get("topic") + "-" + h.get("partition")).equals(o.partition())
                && Math.abs((Double) h.get("durationMs") - ms(o.nanos())) < 0.011;
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> holders(Finding f) {
        return (List<Map<String, Object>>) f.details().get("holders");
    }

    @Test
    void aBurstOfQueuedReadsIsToldWithTheReadsThatHeldThePool() {
        List<RemoteStorageWorkload.Op> slow = remote.of(SATURATED, "remote_read").stream().filter(o -> o.partition().equals("orders-7")).toList();
        // of the ten reads, the first two took the pool at once; the eight behind them queued for most of their 300 ms
        List<RemoteStorageWorkload.Op> waits = queued(remote, SATURATED);
        assertThat(waits).hasSize(8).allSatisfy(o -> assertThat(o.nanos()).isGreaterThan(RemoteStorageWorkload.SLOW_NANOS))
                .allSatisfy(o -> assertThat(o.behindThread()).isNotNull()).noneMatch(o -> o.partition().equals("orders-7"));
        Finding f = burst(window(SATURATED), remote, SATURATED);
        long total = waits.stream().mapToLong(RemoteStorageWorkload.Op::nanos).sum();
        long longest = waits.stream().mapToLong(RemoteStorageWorkload.Op::nanos).max().getAsLong();
        assertThat(f.details()).containsEntry("queuedReads", 8);
        assertThat((double) f.details().get("totalWaitMs")).isCloseTo(ms(total), within(0.02));
        assertThat((double) f.details().get("longestWaitMs")).isCloseTo(ms(longest), within(0.01));
        // the holders: the two reads of orders-7, each with its exact duration, first; then the quick reads of
        // orders-0..3 that took a thread while later reads still queued (queued ahead of them, first in, first out)
        assertHoldersAreTheReadsThatOverlappedAWait(f, remote, SATURATED);
        List<Map<String, Object>> sevens = holders(f).subList(0, 2), quick = holders(f).subList(2, holders(f).size());
        // recorded: the reads the waits' behind fields name (the agent's longest overlap, always a read of orders-7); the others, inferred
        List<String> named = waits.stream().map(RemoteStorageWorkload.Op::behindThread).distinct().toList();
        assertThat(sevens).allSatisfy(h -> {
            assertThat(h).containsEntry("topic", "orders").containsEntry("partition", 7).containsEntry("waits", 8)
                    .containsEntry("source", named.contains(h.get("thread")) ? "recorded" : "inferred");
            assertThat(h.get("thread").toString()).startsWith("remote-log-reader");
        });
        assertThat(sevens.stream().map(h -> (Double) h.get("durationMs")).sorted().toList())
                .usingElementComparator((x, y) -> Math.abs(x - y) < 0.011 ? 0 : Double.compare(x, y))
                .isEqualTo(slow.stream().map(o -> Math.round(o.nanos() / 1e4) / 100.0).sorted().toList());
        // at least the first four: each ran 10 ms while four more waited
        assertThat(quick).hasSizeGreaterThanOrEqualTo(4).allSatisfy(h -> assertThat(h).containsEntry("source", "inferred")
                .extracting(x -> x.get("partition")).isIn(0, 1, 2, 3));
        assertThat(f.details()).containsEntry("holderReads", 2 + quick.size());
        // led by the reads of orders-7, the others counted
        String more = io.stallscope.analyzer.util.Counts.of(quick.size(), "more read");
        assertThat(f.summary()).startsWith("8 remote reads queued ").contains(" in all (longest ")
                .contains(" ms) in the remote-log-reader pool behind 2 reads of orders-7 (").contains(" ms) and " + more + " (")
                .endsWith(" ms in all) from remote storage");
        List<String> chain = f.evidence().stream().filter(e -> e.startsWith("chain ")).toList();
        assertThat(chain).hasSize(3);
        assertThat(chain.get(0)).startsWith("chain 1, waited: 8 remote reads for orders-0, orders-1, orders-2, orders-3, ")
                .endsWith("[recorded: stallscope.RemoteQueueWait spans]");
        assertThat(chain.get(1)).startsWith("chain 2, held by: 2 reads of orders-7").contains(", and " + more + " (")
                .endsWith("[recorded: the behind fields of 8 of the 8 waits; inferred: remote_read spans that overlapped the waits]");
        // the lead holder's work, with the plugin's fetchLogSegment the workload ran inside it
        List<String> fetches = remote.of(SATURATED, "remote_fetch").stream().map(o -> io.stallscope.analyzer.util.Durations.text(o.nanos())).toList();
        assertThat(chain.get(2)).startsWith("chain 3, doing: remote_read of orders-7 for ").contains("; inside it remote_fetch ");
        assertThat(chain.get(2).replaceAll(".*; inside it remote_fetch (\\S+ ms) .*", "$1")).isIn(fetches);
        assertThat(f.harm().hurt()).as("no pool thread serves a request").isFalse();
        // the reads (and the fetch inside each) and the waits of 100 ms or more are this stall, no slow-op of their own
        assertThat(remoteAnalysis.findings()).noneMatch(x -> x.kind().equals(Finding.SLOW_OP)
                && x.threads().get(0).startsWith(RemoteStorageWorkload.POOL_PREFIX));
        // the whole recording: the three bursts that queued most, the rest (the control's at least; a pool thread slow to
        // wake for a holder's read makes one more) summed in the first
        List<Finding> pool = of(remoteAnalysis, Finding.REMOTE_READER_POOL_SATURATED);
        assertThat(pool).hasSize(3);
        assertThat(pool.get(0).summary()).isEqualTo(f.summary());
        assertThat(pool.get(0).evidence()).anySatisfy(e -> assertThat(e).matches("\\d+ more bursts? of the pool: \\d+ remote reads? queued .* in all"));
    }

    @Test
    void withoutTheAgentsPairingTheReadsThatOverlappedTheWaitsAreInferred() {
        assertThat(queued(remote, INFERRED)).hasSize(3).allSatisfy(o -> assertThat(o.partition()).isEqualTo("orders-6"))
                .allSatisfy(o -> assertThat(o.behindThread()).isNull());
        Finding f = burst(window(INFERRED), remote, INFERRED);
        assertHoldersAreTheReadsThatOverlappedAWait(f, remote, INFERRED);
        // the two reads of orders-5, then those of orders-6 that took a thread while the third still queued
        assertThat(holders(f)).allSatisfy(h -> assertThat(h).containsEntry("source", "inferred"));
        assertThat(holders(f)).extracting(h -> h.get("partition")).startsWith(5, 5).containsOnly(5, 6).contains(6);
        String more = io.stallscope.analyzer.util.Counts.of(holders(f).size() - 2, "more read");
        assertThat(f.summary()).contains(" in the remote-log-reader pool behind 2 reads of orders-5 (").contains(" ms) and " + more + " (");
        assertThat(f.evidence()).anySatisfy(e -> assertThat(e).startsWith("chain 2, held by: 2 reads of orders-5").contains(", and " + more + " (")
                .endsWith("[inferred: remote_read spans that overlapped the waits]"));
    }

    @Test
    void waitsNoRecordedReadOverlappedNameNoCulprit() {
        List<RemoteStorageWorkload.Op> waits = remote.of(CONTROL, "remote_queue_wait");
        assertThat(waits).hasSize(1).allSatisfy(o -> assertThat(o.nanos()).isGreaterThan(40_000_000L));
        // the read of orders-8 ran after its wait: it is in the recording, and no holder
        assertThat(remote.of(CONTROL, "remote_read")).hasSize(1).allSatisfy(r -> assertThat(r.start()).isGreaterThanOrEqualTo(waits.get(0).end()));
        Finding f = burst(window(CONTROL), remote, CONTROL);
        assertThat(f.details()).containsEntry("queuedReads", 1);
        assertThat(holders(f)).isEmpty();
        assertThat(f.summary()).startsWith("1 remote read queued ")
                .endsWith("; no remote read in the recording ran during the waits, so what held the pool is not known")
                .doesNotContain("behind");
        assertThat(f.evidence()).noneMatch(e -> e.startsWith("held by") || e.startsWith("chain 2"));
    }

    @Test
    void aReadOnlyTheWaitsBehindFieldsNameIsNamedByItsThread() {
        List<RemoteStorageWorkload.Op> waits = queued(remote, UNSEEN);
        assertThat(waits).hasSize(2).allSatisfy(o -> assertThat(o.partition()).isEqualTo("orders-10"))
                .allSatisfy(o -> assertThat(o.behindThread()).isNotNull());
        // which of the two untimed reads a wait names is the agent's tie-break when both held the pool all along
        List<String> named = waits.stream().map(RemoteStorageWorkload.Op::behindThread).distinct().toList();
        Finding f = burst(window(UNSEEN), remote, UNSEEN);
        List<Map<String, Object>> unseen = holders(f).subList(0, named.size());
        assertThat(unseen).extracting(h -> h.get("thread")).containsExactlyInAnyOrderElementsOf(named);
        assertThat(unseen).allSatisfy(h -> assertThat(h).containsEntry("source", "recorded").containsEntry("durationMs", null)
                .containsEntry("partition", -1));
        // after them, the first read of orders-10, which took the thread the second one's wait needed
        assertHoldersAreTheReadsThatOverlappedAWait(f, remote, UNSEEN);
        List<Map<String, Object>> spans = holders(f).subList(named.size(), holders(f).size());
        assertThat(spans).hasSize(1).allSatisfy(h -> assertThat(h).containsEntry("partition", 10).containsEntry("source", "inferred"));
        assertThat(f.summary()).contains(" pool behind " + (named.size() == 1 ? "1 read on " : "2 reads on ")).contains(named)
                .matches(".* not in the recording \\(named by the waits' behind fields\\) and 1 more read \\(\\d+\\.\\d ms\\) from remote storage");
        // what the unseen reads did is not recorded; the quick read's is not what held the pool
        assertThat(f.evidence()).noneMatch(e -> e.startsWith("chain 3"));
    }

    @Test
    void aRequestHandlerInThePluginsCallsIsNamedWithItsPartitionAndTheCallThatTookTheTime() {
        Finding f = of(remoteAnalysis, Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE).stream()
                .filter(x -> x.details().get("handlerThread").equals(HANDLER_LOOKUP)).findFirst().orElseThrow();
        List<RemoteStorageWorkload.Op> ops = remote.of(LOOKUP, "remote_index_load");
        long load = ops.get(0).nanos();
        long fetch = remote.of(LOOKUP, "remote_fetch").get(0).nanos();
        long fetchIndex = remote.of(LOOKUP, "remote_fetch_index").stream().mapToLong(RemoteStorageWorkload.Op::nanos).sum();
        // blocked: the outermost calls' time, exactly; the index fetches are inside the load
        assertThat((double) f.details().get("blockedMs")).isCloseTo(ms(load + fetch), within(0.02));
        assertThat(f.details()).containsEntry("topic", "orders").containsEntry("partition", 4).containsEntry("calls", 5)
                .containsEntry("slowestOp", "remote_fetch_index");
        assertThat(f.summary()).startsWith(HANDLER_LOOKUP + " blocked ").contains(" in remote storage calls for orders-4: remote_index_load ")
                .contains(" (3 remote_fetch_index inside), remote_fetch ").contains("; most of it in remote_fetch_index (3 calls, ")
                .endsWith(". A ListOffsets by timestamp does this on a handler before Kafka 4.0 (KAFKA-15859); 4.0 moved it off the"
                        + " handlers (KIP-1075)");
        assertThat(f.evidence()).anySatisfy(e -> assertThat(e).startsWith("own time by op").contains("remote_fetch_index "
                + io.stallscope.analyzer.util.Durations.text(fetchIndex) + " (3 calls)"));
        assertThat(f.evidence().stream().filter(e -> e.startsWith("  inside: remote_fetch_index on " + HANDLER_LOOKUP))).hasSize(3);
        assertThat(f.threads()).containsExactly(HANDLER_LOOKUP);
        assertThat(f.harm().hurt()).isTrue();
        assertThat(f.harm().stalledNanos()).isCloseTo(load + fetch, within(1_000_000L));

        // the other handler's lone 150 ms fetchLogSegment: told here, no slow-op of its own
        Finding g = of(remoteAnalysis, Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE).stream()
                .filter(x -> x.details().get("handlerThread").equals(HANDLER_FETCH)).findFirst().orElseThrow();
        assertThat(g.summary()).contains(" for orders-2: remote_fetch ").contains("most of it in remote_fetch (1 call, ");
        assertThat(remoteAnalysis.findings()).noneMatch(x -> x.kind().equals(Finding.SLOW_OP) && x.threads().contains(HANDLER_FETCH));
        // what hurt a client first: the handlers lead, the pool (no request-path thread) after them
        assertThat(remoteAnalysis.findings().get(0).kind()).isEqualTo(Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE);
        assertThat(of(window(SATURATED), Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE)).as("no remote call on a handler then").isEmpty();
        assertThat(of(window(LOOKUP), Finding.REMOTE_READER_POOL_SATURATED)).as("no queued read then").isEmpty();
    }

    @Test
    void aRecordingWithoutRemoteEventsHasNoRemoteFinding() {
        assertThat(localAnalysis.recording().spans).extracting(s -> s.opName()).containsExactly("records_append", "segment_flush");
        assertThat(localAnalysis.findings()).noneMatch(f -> f.kind().equals(Finding.REMOTE_READER_POOL_SATURATED)
                || f.kind().equals(Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE));
    }

    @Test
    void textJsonAndHtmlTellBoth() {
        Finding pool = burst(remoteAnalysis, remote, SATURATED);
        Finding handler = of(remoteAnalysis, Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE).get(0);
        assertThat(text).contains("[" + Finding.REMOTE_READER_POOL_SATURATED + "] 8 remote reads queued ")
                .contains("[" + Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE + "] " + handler.threads().get(0) + " blocked ")
                .contains("- chain 2, held by: 2 reads of orders-7");
        List<JsonNode> findings = StreamSupport.stream(json.get("findings").spliterator(), false).toList();
        JsonNode p = findings.stream().filter(f -> f.get("kind").asText().equals(Finding.REMOTE_READER_POOL_SATURATED)
                && f.get("queuedReads").asInt() == 8).findFirst().orElseThrow();
        assertThat(p.get("summary").asText()).isEqualTo(pool.summary());
        assertThat(p.get("holders")).hasSize(holders(pool).size());
        assertThat(p.get("holders").get(0).get("topic").asText()).isEqualTo("orders");
        assertThat(p.get("holders").get(0).get("partition").asInt()).isEqualTo(7);
        assertThat(p.get("holders").get(0).get("source").asText()).isIn("recorded", "inferred");
        assertThat(p.get("chain").get(1).get("step").asText()).isEqualTo("held by");
        assertThat(p.get("atMs").isNumber()).isTrue();
        JsonNode h = findings.stream().filter(f -> f.get("kind").asText().equals(Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE)
                && f.get("handlerThread").asText().equals(HANDLER_LOOKUP)).findFirst().orElseThrow();
        assertThat(h.get("partition").asInt()).isEqualTo(4);
        assertThat(h.get("slowestOp").asText()).isEqualTo("remote_fetch_index");
        assertThat(StreamSupport.stream(h.get("ops").spliterator(), false).map(o -> o.get("op").asText()).collect(Collectors.toList()))
                .containsExactlyInAnyOrder("remote_fetch_index", "remote_fetch", "remote_index_load").first().isEqualTo("remote_fetch_index");
        assertThat(h.get("harm").get("threads").asInt()).isEqualTo(1);
        // the HTML lists both, each linked to its moment on its threads' lanes
        assertThat(html).contains(Finding.REMOTE_READER_POOL_SATURATED + "</span> 8 remote reads queued")
                .contains(Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE + "</span> ");
        assertThat(html.split(Finding.REMOTE_READER_POOL_SATURATED + "</span>")[1].split("</li>")[0]).contains("show on the timeline");
    }
}
