package io.stallscope.agent.safepoint;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpTrace;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which thread held a safepoint up: a lookup running all through its sync, by the traces the hooks keep. */
class SafepointHolderTest {
    private static final long MS = 1_000_000L;
    private static final String INDEX = "/data/kafka/orders-3/00000000000041943040.index";
    /** A sync from 1,000 ms to 1,212 ms on the nanoTime scale. */
    private static final long SYNC_START = 1_000 * MS;
    private static final long SYNC_END = 1_212 * MS;

    private static SafepointHolder.Candidate thread(String name, int op, long start, long end, Object subject) {
        OpTrace trace = new OpTrace();
        trace.add(op, 0, start, end, subject);
        return new SafepointHolder.Candidate(name, trace);
    }

    @Test
    void theLookupThatRanAllThroughTheSyncIsNamedWithItsPartitionAndFile() {
        SafepointHolder h = SafepointHolder.find(SYNC_START, SYNC_END, List.of(
            thread("data-plane-kafka-request-handler-1", Op.RECORDS_APPEND, 900 * MS, 1_300 * MS, "/data/kafka/orders-1/0.log"),
            thread("data-plane-kafka-request-handler-2", Op.INDEX_LOOKUP, 990 * MS, 1_220 * MS, INDEX)));
        assertThat(h).isNotNull();
        assertThat(h.describe()).isEqualTo("behind index_lookup 230.000 ms of orders-3 (" + INDEX
            + ") on thread \"data-plane-kafka-request-handler-2\"");
    }

    @Test
    void aLookupStillOpenIsNamedAsRunning() {
        SafepointHolder h = SafepointHolder.find(SYNC_START, SYNC_END, List.of(
            thread("h-3", Op.INDEX_LOOKUP, 995 * MS, OpTrace.RUNNING, INDEX)));
        assertThat(h.describe()).startsWith("behind index_lookup still running of orders-3");
    }

    /** A thread in write(2) or sendfile is already safe: only a lookup in Java code can hold a safepoint up. */
    @Test
    void otherOpsAndLookupsThatDidNotSpanTheSyncNameNoOne() {
        assertThat(SafepointHolder.find(SYNC_START, SYNC_END, List.of(
            thread("network", Op.TRANSFER_TO, 900 * MS, 1_300 * MS, INDEX),
            thread("ended-before", Op.INDEX_LOOKUP, 990 * MS, 1_100 * MS, INDEX),
            thread("began-after", Op.INDEX_LOOKUP, 1_050 * MS, 1_300 * MS, INDEX)))).isNull();
        assertThat(SafepointHolder.find(SYNC_START, SYNC_END, List.of())).isNull();
    }

    @Test
    void ofTwoLookupsSpanningTheSyncTheOneThatBeganFirstIsNamed() {
        SafepointHolder h = SafepointHolder.find(SYNC_START, SYNC_END, List.of(
            thread("later", Op.INDEX_LOOKUP, 999 * MS, 1_250 * MS, INDEX),
            thread("first", Op.INDEX_LOOKUP, 700 * MS, 1_250 * MS, INDEX)));
        assertThat(h.describe()).endsWith("on thread \"first\"");
    }

    /** A lookup parked in its wait for the remap lock through the sync was at a safepoint: not the holder. */
    @Test
    void aLookupParkedBehindTheRemapLockHoldsNothingUp() {
        OpTrace parked = new OpTrace();
        parked.add(Op.INDEX_LOOKUP, 0, 950 * MS, 1_300 * MS, INDEX);
        parked.add(Op.INDEX_REMAP_WAIT, 1, 960 * MS, 1_250 * MS, INDEX);
        assertThat(SafepointHolder.find(SYNC_START, SYNC_END,
            List.of(new SafepointHolder.Candidate("data-plane-kafka-request-handler-4", parked)))).isNull();
        SafepointHolder h = SafepointHolder.find(SYNC_START, SYNC_END, List.of(
            new SafepointHolder.Candidate("data-plane-kafka-request-handler-4", parked),
            thread("faulting", Op.INDEX_LOOKUP, 990 * MS, 1_220 * MS, INDEX)));
        assertThat(h.describe()).endsWith("on thread \"faulting\"");
    }

    /**
     * Merged safepoints (HotSpot's counters grew by several between two reads 2.2 s apart, 2,214 ms of sync in 3
     * safepoints): the slow one took at least 738 ms somewhere in the window. A lookup that overlapped the window that
     * long held it up; the longest of them is named. Its place from the first read (the rule the single sync uses)
     * would have named none: measured on 2.8.2 on a cold XFS, where four of 32 merged lines named nothing.
     */
    @Test
    void aMergedSyncIsHeldUpByTheLookupThatOverlappedTheWindowForItsShare() {
        long from = 10_000 * MS;
        long to = 12_250 * MS;
        long minCover = 2_214 * MS / 3;
        SafepointHolder h = SafepointHolder.findWithin(from, to, minCover, List.of(
            thread("short", Op.INDEX_LOOKUP, 10_100 * MS, 10_500 * MS, INDEX),
            thread("faulting", Op.INDEX_LOOKUP, 9_990 * MS, 11_700 * MS, INDEX),
            thread("stopped-too", Op.INDEX_LOOKUP, 11_300 * MS, OpTrace.RUNNING, INDEX),
            thread("network", Op.TRANSFER_TO, 9_000 * MS, 13_000 * MS, INDEX)));
        assertThat(h.describe()).endsWith("on thread \"faulting\"");
        // no lookup overlapped the window for a safepoint's share: no holder
        assertThat(SafepointHolder.findWithin(from, to, minCover, List.of(
            thread("short", Op.INDEX_LOOKUP, 10_100 * MS, 10_500 * MS, INDEX),
            thread("before", Op.INDEX_LOOKUP, 8_000 * MS, 10_300 * MS, INDEX)))).isNull();
        // parked in the remap-lock wait for as long: at a safepoint all along
        OpTrace parked = new OpTrace();
        parked.add(Op.INDEX_LOOKUP, 0, 9_990 * MS, 11_700 * MS, INDEX);
        parked.add(Op.INDEX_REMAP_WAIT, 1, 9_995 * MS, 11_690 * MS, INDEX);
        assertThat(SafepointHolder.findWithin(from, to, minCover,
            List.of(new SafepointHolder.Candidate("parked", parked)))).isNull();
    }

    /**
     * JFR's timestamps come through the wall clock; converted back they land on nanoTime's scale within the slack. The
     * best of five tries, so that a thread descheduled between two clock reads on a loaded machine does not fail it;
     * a wrong conversion is off by the clocks' whole difference, decades.
     */
    @Test
    void anEpochTimeConvertsToNanoTimeWithinTheSlack() {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            java.time.Instant now = java.time.Instant.now();
            long nano = System.nanoTime();
            long converted = SafepointHolder.toNanoTime(now.getEpochSecond() * 1_000_000_000L + now.getNano());
            best = Math.min(best, Math.abs(converted - nano));
        }
        assertThat(best).isLessThan(SafepointHolder.SLACK_NANOS);
    }
}
