package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edges of the tiered-storage findings' rules, on recordings built in memory: which reads held the pool (not one
 * that began during the wait, not one under a millisecond of overlap, not another broker's), what a burst is, and how a
 * handler's calls are grouped and timed. The recorded cases are in RemoteStorageRecordingTest.
 */
class RemoteFindingsRulesTest {
    private static final long T0 = 1_800_000_000_000_000_000L;
    private static final long MS = 1_000_000L;

    private final Recording rec = new Recording();
    private final int reader0;
    private final int reader1;
    private final int otherBrokersReader;
    private final int handler;

    RemoteFindingsRulesTest() {
        for (int i = 0; i < 2; i++) {
            SourceFile f = new SourceFile(i, "broker-" + i + ".jfr");
            f.startNanos = T0;
            f.endNanos = T0 + 5_000 * MS;
            rec.files.add(f);
        }
        reader0 = rec.thread(0, "remote-log-reader0", 40, 0);
        reader1 = rec.thread(0, "remote-log-reader1", 41, 0);
        otherBrokersReader = rec.thread(1, "remote-log-reader0", 40, 0);
        handler = rec.thread(0, "data-plane-kafka-request-handler-2", 30, 0);
    }

    private void span(String type, String op, int thread, String role, String topic, int partition, long fromMs, long toMs, Span.Behind behind) {
        rec.spans.add(new Span(type, T0 + fromMs * MS, T0 + toMs * MS, thread, op, role, topic, partition, -1,
                "remote:" + topic + "-" + partition, false, behind));
    }

    /** A remote read's wait, reported on the pool thread that then took it up. */
    private void waited(int thread, int partition, long fromMs, long toMs, Span.Behind behind) {
        span("stallscope.RemoteQueueWait", "remote_queue_wait", thread, "other", "orders", partition, fromMs, toMs, behind);
    }

    private void read(int thread, int partition, long fromMs, long toMs) {
        span("stallscope.RemoteRead", "remote_read", thread, "other", "orders", partition, fromMs, toMs, null);
    }

    private List<Finding> findings(String kind) {
        return Analyzer.analyze(rec, Options.defaults()).findings().stream().filter(f -> f.kind().equals(kind)).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> holders(Finding f) {
        return (List<Map<String, Object>>) f.details().get("holders");
    }

    @Test
    void onlyAReadAlreadyRunningWhenTheReadWasQueuedHeldThePool() {
        read(reader0, 7, 0, 300);
        read(reader1, 3, 100, 300); // began during the wait: queued ahead of it, a co-victim
        read(otherBrokersReader, 4, 0, 300); // another broker's pool
        read(rec.thread(0, "remote-log-reader2", 42, 0), 5, 0, 51); // 1 ms into the wait: the least overlap that counts
        read(rec.thread(0, "remote-log-reader3", 43, 0), 6, 0, 50); // ended as the wait began
        waited(reader1, 1, 50, 300, null);
        List<Finding> f = findings(Finding.REMOTE_READER_POOL_SATURATED);
        assertThat(f).hasSize(1);
        assertThat(holders(f.get(0))).extracting(h -> h.get("partition")).containsExactly(7, 5);
        assertThat(holders(f.get(0))).allSatisfy(h -> assertThat(h).containsEntry("source", "inferred"));
        assertThat(f.get(0).summary()).isEqualTo("1 remote read queued 250.0 ms in all (longest 250.0 ms) in the remote-log-reader pool"
                + " behind 2 reads: 1 of orders-7 (300.0 ms), 1 of orders-5 (51.0 ms) from remote storage");
        assertThat(f.get(0).weightNanos()).isEqualTo(250 * MS);
        assertThat(f.get(0).harm().hurt()).isFalse();
    }

    @Test
    void waitsThatOverlapInAChainAreOneBurstAndWaitsThatOnlyTouchAreTwo() {
        read(reader0, 7, 0, 400);
        waited(reader1, 1, 10, 100, null);
        waited(reader1, 2, 90, 200, null); // overlaps the first
        waited(reader1, 3, 200, 300, null); // touches the second only: a burst of its own
        List<Finding> f = findings(Finding.REMOTE_READER_POOL_SATURATED);
        assertThat(f).extracting(x -> x.details().get("queuedReads")).containsExactly(2, 1);
        assertThat(f.get(0).details()).containsEntry("totalWaitMs", 200.0).containsEntry("longestWaitMs", 110.0)
                .containsEntry("startMs", 10.0).containsEntry("endMs", 200.0).containsEntry("queuedPartitions", List.of("orders-1", "orders-2"));
    }

    @Test
    void aBurstWhoseLongestWaitIsUnderTenMillisecondsIsNoFinding() {
        read(reader0, 7, 0, 400);
        waited(reader1, 1, 10, 19, null);
        waited(reader1, 2, 15, 24, null);
        assertThat(findings(Finding.REMOTE_READER_POOL_SATURATED)).isEmpty();
        waited(reader1, 3, 100, 110, null);
        assertThat(findings(Finding.REMOTE_READER_POOL_SATURATED)).hasSize(1);
    }

    @Test
    void theBehindFieldsNameTheReadOfThatThreadEvenWhenTwoThreadsShareItsName() {
        int twin = rec.thread(0, "remote-log-reader0", 99, 0);
        rec.distinguishSharedNames(0);
        read(reader0, 7, 0, 300);
        read(twin, 8, 0, 250);
        waited(reader1, 1, 20, 260, new Span.Behind("remote_read", "remote-log-reader0", 230, "pool"));
        Finding f = findings(Finding.REMOTE_READER_POOL_SATURATED).get(0);
        // both threads are "remote-log-reader0" in the recording's file: of their reads, the one that overlapped most is named
        assertThat(holders(f)).extracting(h -> h.get("thread") + " " + h.get("partition") + " " + h.get("source"))
                .containsExactly("remote-log-reader0 #40 7 recorded", "remote-log-reader0 #99 8 inferred");
        assertThat(f.evidence()).anySatisfy(e -> assertThat(e).startsWith("queued: remote_queue_wait on remote-log-reader1 at +0.020 s for 240.0 ms, "
                + "orders-1; its remote_queue_wait ran 230 ms behind remote-log-reader0's remote_read, sharing the pool"));
    }

    @Test
    void aHandlersCallsOnOnePartitionCloseInTimeAreOneRunNestedDespiteTheirEventsJitter() {
        // the index load's event was committed 0.3 ms later than its fetchIndex calls': it seems to begin after the first
        rec.spans.add(new Span("stallscope.RemoteIndexLoad", T0 + 10 * MS + 300_000, T0 + 110 * MS + 300_000, handler,
                "remote_index_load", "request_handler", "orders", 4, -1, "remote:orders-4", false, null));
        span("stallscope.RemoteFetchIndex", "remote_fetch_index", handler, "request_handler", "orders", 4, 10, 40, null);
        span("stallscope.RemoteFetchIndex", "remote_fetch_index", handler, "request_handler", "orders", 4, 40, 70, null);
        span("stallscope.RemoteFetch", "remote_fetch", handler, "request_handler", "orders", 4, 130, 170, null); // 20 ms later: same run
        span("stallscope.RemoteFetch", "remote_fetch", handler, "request_handler", "orders", 4, 300, 310, null); // 130 ms later: another
        span("stallscope.RemoteFetch", "remote_fetch", handler, "request_handler", "orders", 5, 311, 320, null); // another partition
        List<Finding> f = findings(Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE);
        assertThat(f).hasSize(3);
        Finding first = f.get(0);
        assertThat(first.details()).containsEntry("handlerThread", "data-plane-kafka-request-handler-2").containsEntry("partition", 4)
                .containsEntry("blockedMs", 140.0).containsEntry("calls", 4).containsEntry("slowestOp", "remote_fetch_index");
        assertThat(first.summary()).startsWith("data-plane-kafka-request-handler-2 blocked 140.0 ms in remote storage calls for orders-4:"
                + " remote_index_load 100.0 ms (2 remote_fetch_index inside), remote_fetch 40.0 ms; the largest part in remote_fetch_index"
                + " (2 calls, 60.0 ms of its own). A ListOffsets by timestamp does this on a handler before Kafka 4.0");
        assertThat(first.evidence()).contains("own time by op (a call's time without the timed calls inside it): remote_fetch_index 60.0 ms"
                + " (2 calls), remote_fetch 40.0 ms (1 call), remote_index_load 40.0 ms (1 call)");
        assertThat(first.harm().stalledNanos()).isEqualTo(140 * MS);
        assertThat(f).extracting(x -> x.details().get("blockedMs")).containsExactly(140.0, 10.0, 9.0);
    }

    @Test
    void remoteCallsOffTheHandlersAndLocalOpsAreNoHandlerFinding() {
        span("stallscope.RemoteFetch", "remote_fetch", reader0, "other", "orders", 4, 10, 200, null);
        span("stallscope.RemoteCopy", "remote_copy", rec.thread(0, "kafka-rlm-copy-thread-pool-3", 50, 0), "other", "orders", 4, 10, 200, null);
        rec.spans.add(new Span("stallscope.SegmentRead", T0, T0 + 150 * MS, handler, "segment_read", "request_handler", "orders", 4, -1,
                "/data/orders-4/00000000000000000000.log", false));
        List<Finding> all = Analyzer.analyze(rec, Options.defaults()).findings();
        assertThat(all).noneMatch(x -> x.kind().equals(Finding.HANDLER_BLOCKED_ON_REMOTE_STORAGE) || x.kind().equals(Finding.REMOTE_READER_POOL_SATURATED));
        // still slow ops: nothing here tells them
        assertThat(all).filteredOn(x -> x.kind().equals(Finding.SLOW_OP)).hasSize(3);
    }
}
