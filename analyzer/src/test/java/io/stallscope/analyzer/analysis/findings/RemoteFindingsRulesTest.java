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
 * The edges of the tiered-storage findings' rules, on recordings built in memory: which reads held the pool (every
 * one with a millisecond of overlap, one that began during the wait too, not another broker's), which of them the
 * summary leads with, what a burst is, and how a handler's calls are grouped and timed. The recorded cases are in RemoteStorageRecordingTest.
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
        span(type, op, thread, role, topic, partition, (double) fromMs, (double) toMs, behind);
    }

    /** Times in ms with a fraction: to the microsecond. */
    private void span(String type, String op, int thread, String role, String topic, int partition, double fromMs, double toMs, Span.Behind behind) {
        rec.spans.add(new Span(type, T0 + Math.round(fromMs * 1000) * 1000, T0 + Math.round(toMs * 1000) * 1000, thread, op, role, topic,
                partition, -1, "remote:" + topic + "-" + partition, false, behind));
    }

    /** A remote read's wait, reported on the pool thread that then took it up. */
    private void waited(int thread, int partition, long fromMs, long toMs, Span.Behind behind) {
        span("stallscope.RemoteQueueWait", "remote_queue_wait", thread, "other", "orders", partition, fromMs, toMs, behind);
    }

    private void waited(int thread, int partition, double fromMs, double toMs, Span.Behind behind) {
        span("stallscope.RemoteQueueWait", "remote_queue_wait", thread, "other", "orders", partition, fromMs, toMs, behind);
    }

    private void read(int thread, int partition, double fromMs, double toMs) {
        span("stallscope.RemoteRead", "remote_read", thread, "other", "orders", partition, fromMs, toMs, null);
    }

    /** The agent's behind fields for a wait (OverlapRanking, scope pool): the read with the longest overlap. */
    private static Span.Behind behind(String thread, long overlapMs) {
        return new Span.Behind("remote_read", thread, overlapMs, "pool");
    }

    private List<Finding> findings(String kind) {
        return Analyzer.analyze(rec, Options.defaults()).findings().stream().filter(f -> f.kind().equals(kind)).toList();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> holders(Finding f) {
        return (List<Map<String, Object>>) f.details().get("holders");
    }

    @Test
    void everyReadThatHeldAPoolThreadForAMillisecondOfTheWaitHeldThePoolWheneverItBegan() {
        read(reader0, 7, 0, 300);
        // began during the wait: queued ahead of it (the pool's queue is first in, first out), it took a thread the wait needed
        read(rec.thread(0, "remote-log-reader4", 44, 0), 3, 100, 300);
        read(otherBrokersReader, 4, 0, 300); // another broker's pool
        read(rec.thread(0, "remote-log-reader2", 42, 0), 5, 0, 51); // 1 ms into the wait: the least overlap that counts
        read(rec.thread(0, "remote-log-reader3", 43, 0), 6, 0, 50); // ended as the wait began
        read(rec.thread(0, "remote-log-reader5", 45, 0), 9, 299, 400); // began 1 ms before the wait ended: counts
        read(rec.thread(0, "remote-log-reader6", 46, 0), 10, 299.5, 400); // 0.5 ms of the wait: does not
        read(rec.thread(0, "remote-log-reader7", 47, 0), 11, 120, 120.8); // a read of 0.8 ms inside the wait: does not
        waited(reader1, 1, 50, 300, null);
        List<Finding> f = findings(Finding.REMOTE_READER_POOL_SATURATED);
        assertThat(f).hasSize(1);
        // the longest first
        assertThat(holders(f.get(0))).extracting(h -> h.get("partition")).containsExactly(7, 3, 9, 5);
        assertThat(holders(f.get(0))).extracting(h -> h.get("overlapMs")).containsExactly(250.0, 200.0, 1.0, 1.0);
        assertThat(holders(f.get(0))).allSatisfy(h -> assertThat(h).containsEntry("source", "inferred"));
        assertThat(f.get(0).details()).containsEntry("holderReads", 4);
        // led by the reads at least half as long as the longest, the others counted
        assertThat(f.get(0).summary()).isEqualTo("1 remote read queued 250.0 ms in all (longest 250.0 ms) in the remote-log-reader pool"
                + " behind 2 reads: 1 of orders-7 (300.0 ms), 1 of orders-3 (200.0 ms), and 2 more reads (152.0 ms in all) from remote storage");
        assertThat(f.get(0).evidence()).contains("chain 2, held by: 2 reads: 1 of orders-7 (300.0 ms), 1 of orders-3 (200.0 ms) on"
                + " remote-log-reader0, remote-log-reader4, and 2 more reads (152.0 ms in all)"
                + " [inferred: remote_read spans that overlapped the waits]");
        assertThat(f.get(0).evidence()).anySatisfy(e -> assertThat(e).isEqualTo("held by: remote_read on remote-log-reader4 at +0.100 s"
                + " for 200.0 ms, orders-3, running during 1 wait (longest overlap 200.0 ms) [inferred: its span overlapped the waits]"));
        assertThat(f.get(0).weightNanos()).isEqualTo(250 * MS);
        assertThat(f.get(0).harm().hurt()).isFalse();
    }

    @Test
    void theReadsOfABurstThatTookBothThreadsJustAfterTheWaitsWereQueuedHeldThePool() {
        // a fetch burst queues four reads within microseconds; the two threads take the first two 0.1 and 0.2 ms later
        waited(reader0, 2, 1000, 1000.1, null);
        waited(reader1, 3, 1000.01, 1000.2, null);
        read(reader0, 2, 1000.1, 1188);
        read(reader1, 3, 1000.2, 1188.5);
        // the agent names the longest overlap: reader1's read, for both
        waited(reader0, 0, 1000.02, 1188, behind("remote-log-reader1", 187));
        waited(reader1, 1, 1000.03, 1188.5, behind("remote-log-reader1", 188));
        // the queued reads' own: after every wait but 0.5 ms of the last one's, no holder
        read(reader0, 0, 1188, 1376);
        read(reader1, 1, 1188.5, 1377);
        Finding f = findings(Finding.REMOTE_READER_POOL_SATURATED).get(0);
        assertThat(f.details()).containsEntry("queuedReads", 4);
        assertThat(holders(f)).extracting(h -> h.get("thread") + " " + h.get("partition") + " " + h.get("source") + " " + h.get("waits"))
                .containsExactly("remote-log-reader1 3 recorded 2", "remote-log-reader0 2 inferred 2");
        assertThat(f.summary()).endsWith(" in the remote-log-reader pool behind 2 reads: 1 of orders-3 (188.3 ms), 1 of orders-2 (187.9 ms)"
                + " from remote storage");
    }

    @Test
    void theSummaryLeadsWithTheLongestReadsAndThoseTheAgentNamedAndCountsTheOthers() {
        // two reads of orders-7 hold both threads; six reads queued 40 ms later take them in turn, each for 10 ms, and
        // so hold the pool for the waits still queued behind them
        read(reader0, 7, 0, 300);
        read(reader1, 7, 0, 290);
        long[][] waits = {{290, 1}, {300, 0}, {300, 1}, {310, 0}, {310, 1}, {320, 0}};
        for (int k = 0; k < waits.length; k++) {
            int thread = waits[k][1] == 0 ? reader0 : reader1;
            waited(thread, k % 4, 40, waits[k][0], null);
            read(thread, k % 4, waits[k][0], waits[k][0] + 10); // the last one's overlaps no wait
        }
        Finding f = findings(Finding.REMOTE_READER_POOL_SATURATED).get(0);
        assertThat(f.details()).containsEntry("holderReads", 7);
        assertThat(f.summary()).isEqualTo("6 remote reads queued 1590.0 ms in all (longest 280.0 ms) in the remote-log-reader pool behind"
                + " 2 reads of orders-7 (300.0, 290.0 ms) and 5 more reads (50.0 ms in all) from remote storage");
        assertThat(f.evidence().stream().filter(e -> e.startsWith("held by: "))).hasSize(7);
        assertThat(f.evidence()).contains("chain 2, held by: 2 reads of orders-7 (300.0, 290.0 ms) on remote-log-reader0, remote-log-reader1,"
                + " and 5 more reads (50.0 ms in all) [inferred: remote_read spans that overlapped the waits]");

        // a read shorter than half the longest that the agent named for a wait (its longest overlap) leads too
        rec.spans.clear();
        int reader2 = rec.thread(0, "remote-log-reader2", 42, 0);
        int reader3 = rec.thread(0, "remote-log-reader3", 43, 0);
        read(reader0, 3, 0, 140);
        read(reader1, 7, 145, 445);
        waited(reader2, 1, 10, 150, behind("remote-log-reader0", 130));
        read(reader2, 1, 150, 160);
        waited(reader3, 2, 140, 440, behind("remote-log-reader1", 295));
        Finding g = findings(Finding.REMOTE_READER_POOL_SATURATED).get(0);
        assertThat(g.summary()).isEqualTo("2 remote reads queued 440.0 ms in all (longest 300.0 ms) in the remote-log-reader pool behind"
                + " 2 reads: 1 of orders-7 (300.0 ms), 1 of orders-3 (140.0 ms), and 1 more read (10.0 ms) from remote storage");
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
    void theBehindFieldsNeverNameAShorterReadOfTheNamedThread() {
        // reader0's read the agent named held the pool 200 ms of the wait; its event is not in the recording (still
        // running at the recording's end, or under jfr.threshold.remote_read); reader0's next read, 40 ms, is
        read(reader0, 3, 250, 290);
        waited(reader1, 1, 0, 300, behind("remote-log-reader0", 200));
        Finding f = findings(Finding.REMOTE_READER_POOL_SATURATED).get(0);
        // as the summary tells them, in the JSON too: the named read first, then the shorter one
        assertThat(holders(f)).extracting(h -> h.get("thread") + " " + h.get("partition") + " " + h.get("source"))
                .containsExactly("remote-log-reader0 -1 recorded", "remote-log-reader0 3 inferred");
        assertThat(f.summary()).endsWith(" pool behind 1 read on remote-log-reader0 whose own event is not in the recording"
                + " (named by the waits' behind fields) and 1 more read (40.0 ms) from remote storage");
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
