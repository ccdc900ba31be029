package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.analysis.stacks.SafepointStacks;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SampleBlock;
import io.stallscope.analyzer.model.Safepoint;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.model.State;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The order of evidence for what held a safepoint up, on a model built event by event: what the real recordings of
 * {@code SafepointRecordingTest} cannot show without a slow disk, a recorded index read whose samples show the page
 * fault, and a fault preferred to a thread merely running. The kernel frames are those async-profiler's CPU samples
 * show for a fault ({@code SafepointStacksTest} reads them from a real recording).
 */
class SafepointHoldersTest {
    private static final long MS = 1_000_000L;
    private static final long T0 = 1_800_000_000_000_000_000L;
    private static final String INDEX = "/data/orders-3/00000000000041943040.index";

    private final Recording rec = new Recording();
    private final int handler = rec.thread(0, "data-plane-kafka-request-handler-2", 42, 4242);
    private final int cleaner = rec.thread(0, "kafka-log-cleaner-thread-0", 43, 4343);
    private final int fault = stack("k:filemap_fault", "k:handle_mm_fault", "k:exc_page_fault", "k:asm_exc_page_fault",
            "java.nio.DirectByteBuffer.getInt", "kafka.log.OffsetIndex.relativeOffset", "kafka.log.OffsetIndex.lookup");
    private final int running = stack("kafka.log.LogCleaner$Cleaner.cleanInto", "kafka.log.LogCleaner$Cleaner.cleanSegments");
    private final int stopped = stack("n:syscall", "n:SafepointSynchronize::block", "kafka.network.SocketServer.run");

    private int stack(String... frames) {
        int[] ids = new int[frames.length];
        for (int i = 0; i < frames.length; i++) {
            String n = frames[i];
            boolean java = !n.startsWith("k:") && !n.startsWith("n:");
            ids[i] = rec.frames.intern(java ? n : n.substring(2), 0, java);
        }
        return rec.stacks.intern(ids);
    }

    /** A sync from T0 + 10 ms to T0 + 210 ms (21 samples in it); samples every 10 ms of each thread with the given stack. */
    private SlowSafepoint explain(int handlerStack, int cleanerStack) {
        rec.safepoints.begin(0, 7, 60);
        rec.safepoints.sync(0, 7, T0 + 10 * MS, T0 + 210 * MS, 2);
        rec.safepoints.operation(0, 7, "G1CollectFull");
        SampleBlock.Builder b = new SampleBlock.Builder();
        for (long t = 0; t <= 220; t += 10) {
            b.add(T0 + t * MS, handler, handlerStack, (byte) State.SLEEPING.ordinal(), 1);
            // The cleaner stops 50 ms before the end of the sync: not the last one in Java code.
            b.add(T0 + t * MS, cleaner, t < 160 ? cleanerStack : stopped, (byte) State.RUNNABLE.ordinal(), 1);
        }
        rec.samples.add(b.build());
        rec.samples.sort();
        SampledHolders sampled = new SampledHolders(new SafepointStacks(rec.frames, rec.stacks));
        List<Safepoint> slow = rec.safepoints.slow(50 * MS);
        sampled.observe(rec, slow);
        List<SlowSafepoint> out = new SafepointHolders(rec, sampled).explain(slow);
        assertThat(out).hasSize(1);
        return out.get(0);
    }

    @Test
    void theAgentsPairingIsRecordedAndTheFaultItsSamplesShowIsInferred() {
        rec.safepoints.agent(0, 7, "G1CollectFull", (T0 + 10 * MS) / MS, 200 * MS, 2, 60,
                new Safepoint.Agent("data-plane-kafka-request-handler-2", "index_lookup", INDEX));
        SlowSafepoint s = explain(fault, running);
        assertThat(s.holder().source()).isEqualTo(SlowSafepoint.Source.RECORDED);
        assertThat(s.holderThread()).isEqualTo(handler);
        assertThat(s.doing().text()).isEqualTo("in a page fault on " + INDEX);
        assertThat(s.doing().source()).isEqualTo(SlowSafepoint.Source.INFERRED);
        assertThat(s.sentence()).isEqualTo("60 threads stopped 200.0 ms at a safepoint (G1CollectFull) held up by thread "
                + "data-plane-kafka-request-handler-2 [recorded: agent's stallscope.SafepointSync] in a page fault on " + INDEX
                + " [inferred: 21 of its samples in the sync show kernel page-fault frames; the index read: recorded"
                + " (agent's stallscope.SafepointSync)]");
    }

    @Test
    void aCoveringIndexLookupSpanIsRecordedAndAnUnpairedAgentEventDoesNotHideIt() {
        rec.safepoints.agent(0, 7, "G1CollectFull", (T0 + 10 * MS) / MS, 200 * MS, 2, 60, new Safepoint.Agent(null, null, null));
        rec.spans.add(new Span("stallscope.IndexLookup", T0 + 5 * MS, T0 + 211 * MS, handler, "index_lookup", "request_handler",
                "orders", 3, -1, INDEX, false));
        SlowSafepoint s = explain(running, running);
        assertThat(s.holder().text()).isEqualTo("data-plane-kafka-request-handler-2");
        assertThat(s.holder().source()).isEqualTo(SlowSafepoint.Source.RECORDED);
        assertThat(s.holder().basis()).isEqualTo("agent's index_lookup span, 206.0 ms from 5.0 ms before the sync to 1.0 ms after");
        assertThat(s.doing().text()).isEqualTo("in an index read (index_lookup) of " + INDEX);
    }

    @Test
    void fromSamplesAFaultBeatsAThreadRunningAndTheLastInJavaCodeBeatsTheFirst() {
        SlowSafepoint s = explain(fault, running);
        assertThat(s.holder().text()).isEqualTo("data-plane-kafka-request-handler-2");
        assertThat(s.holder().source()).isEqualTo(SlowSafepoint.Source.INFERRED);
        assertThat(s.doing().text()).isEqualTo("in a page fault (in kafka.log.OffsetIndex.relativeOffset)");

        // Both merely running (a model of its own): the one still in Java code at the end of the sync, not the
        // cleaner that stopped 50 ms before it.
        SafepointHoldersTest other = new SafepointHoldersTest();
        SlowSafepoint r = other.explain(other.running, other.running);
        assertThat(r.holder().text()).isEqualTo("data-plane-kafka-request-handler-2");
        assertThat(r.doing().text()).isEqualTo("running kafka.log.LogCleaner$Cleaner.cleanInto");
    }

    @Test
    void withNoEvidenceTheHolderIsUnknownAndTheLineSaysWhy() {
        SlowSafepoint s = explain(stopped, stopped);
        assertThat(s.holder()).isNull();
        assertThat(s.holderThread()).isEqualTo(-1);
        assertThat(s.sentence()).isEqualTo("60 threads stopped 200.0 ms at a safepoint (G1CollectFull)"
                + " [recorded: jdk.SafepointStateSynchronization]; the thread holding it up is unknown: no agent event or"
                + " index_lookup span covers it, and no sample shows a thread in Java code during it (the JDK's own sampler"
                + " takes none during a sync)");
    }
}
