package io.stallscope.agent.runtime;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpSink;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What a thread kept under one attach (a slow inner op waiting for its roll's line, its role) is gone after the next. */
class ReattachTest extends UsesHooks {
    private static final String LOG = "/var/lib/kafka/data/orders-0";
    private static final String SNAPSHOT = LOG + "/00000000000000000042.snapshot";
    private static final String OTHER_SEGMENT = "/var/lib/kafka/data/payments-3/00000000000000000000.log";
    /** Every op takes the detailed path; only snapshot_write is slow. */
    private static final String SNAPSHOT_WRITES_SLOW = "slow.threshold=3600s,slow.threshold.snapshot_write=0ms";

    @Test
    void aRollOpenAtDetachLeavesNoPhantomLineAfterReattach() throws Exception {
        List<String> first = Collections.synchronizedList(new ArrayList<>());
        Hooks.install(RecorderSink.withLines(new SimpleMeterRegistry(), SNAPSHOT_WRITES_SLOW, first));
        long roll = Hooks.enter(Op.LOG_ROLL, LOG);
        long write = Hooks.enter(Op.SNAPSHOT_WRITE, SNAPSHOT);
        Hooks.exit(Op.SNAPSHOT_WRITE, write, SNAPSHOT, -1, null);
        assertThat(first).as("the slow snapshot_write waits for its roll's line").isEmpty();

        Hooks.install(null); // detached while the roll runs
        Hooks.exit(Op.LOG_ROLL, roll, LOG, -1, null);

        List<String> second = Collections.synchronizedList(new ArrayList<>());
        OpSink reattached = RecorderSink.withLines(new SimpleMeterRegistry(), SNAPSHOT_WRITES_SLOW, second);
        Hooks.install(reattached);
        Hooks.exit(Op.RECORDS_APPEND, Hooks.enter(Op.RECORDS_APPEND, OTHER_SEGMENT), OTHER_SEGMENT, 100, null);
        RecorderSink.drain(reattached);

        assertThat(second).as("lines after the re-attach").isEmpty();
    }

    @Test
    void aThreadsRoleIsClassifiedAgainWithTheNextAttachsListenerNames() throws Exception {
        String name = Thread.currentThread().getName();
        Thread.currentThread().setName("data-plane-kafka-network-thread-1-ListenerName(INTERNAL)-PLAINTEXT-0");
        try {
            List<String> first = Collections.synchronizedList(new ArrayList<>());
            OpSink attached = RecorderSink.withLines(new SimpleMeterRegistry(), "slow.threshold=0ms", first);
            Hooks.install(attached);
            Hooks.exit(Op.TRANSFER_TO, Hooks.enter(Op.TRANSFER_TO, OTHER_SEGMENT), OTHER_SEGMENT, 1, null);
            Hooks.install(null);
            RecorderSink.drain(attached);

            List<String> second = Collections.synchronizedList(new ArrayList<>());
            OpSink reattached = RecorderSink.withLines(new SimpleMeterRegistry(), "slow.threshold=0ms", second,
                List.of("INTERNAL"));
            Hooks.install(reattached);
            Hooks.exit(Op.TRANSFER_TO, Hooks.enter(Op.TRANSFER_TO, OTHER_SEGMENT), OTHER_SEGMENT, 1, null);
            RecorderSink.drain(reattached);

            assertThat(first).singleElement().asString().contains(" role=network ");
            assertThat(second).singleElement().asString().contains(" role=controller ");
        } finally {
            Thread.currentThread().setName(name);
        }
    }
}
