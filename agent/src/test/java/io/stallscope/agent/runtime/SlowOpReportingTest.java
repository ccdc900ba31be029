package io.stallscope.agent.runtime;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.report.OpMetrics;
import io.stallscope.agent.report.OpRecorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A slow op's reporting never holds the broker's thread: a broker log that blocks holds only the agent's own
 * thread, a backlog beyond its queue is dropped and counted, and a line over the budget costs no blame.
 */
class SlowOpReportingTest extends UsesHooks {
    private static final String SEGMENT = "/var/lib/kafka/data/orders-0/00000000000000000000.log";
    private static final String NETWORK_THREAD = "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0";

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    private final CountDownLatch inLog = new CountDownLatch(1);
    private final CountDownLatch logFree = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    /** The broker's log, stuck (a full disk under log4j, a blocking appender) until the test frees it. */
    private final Consumer<String> blockedLog = line -> {
        inLog.countDown();
        Pauses.await(logFree);
        lines.add(line);
    };

    @AfterEach
    void freeTheLog() {
        logFree.countDown();
        release.countDown();
    }

    @Test
    void aSlowOpWhoseLogLineBlocksDoesNotBlockItsThread() throws Exception {
        OpSink recorder = RecorderSink.withLineSink(registry, "slow.threshold=0ms", blockedLog);
        Hooks.install(recorder);
        CountDownLatch returned = new CountDownLatch(1);
        Thread handler = new Thread(() -> {
            Hooks.exit(Op.RECORDS_APPEND, Hooks.enter(Op.RECORDS_APPEND, SEGMENT), SEGMENT, 100, null);
            returned.countDown();
        }, "data-plane-kafka-request-handler-1");
        handler.setDaemon(true);
        handler.start();

        assertThat(inLog.await(10, TimeUnit.SECONDS)).as("the line reached the log").isTrue();
        assertThat(returned.await(10, TimeUnit.SECONDS)).as("the op returned while its line was stuck").isTrue();
        assertThat(lines).isEmpty();

        logFree.countDown();
        RecorderSink.drain(recorder);
        assertThat(lines).singleElement().asString().startsWith("slow op=records_append ");
    }

    @Test
    void slowOpsBeyondTheQueueAreDroppedAndCounted() throws Exception {
        OpSink recorder = RecorderSink.withLineSink(registry, "slow.threshold=0ms,slow.log.per.minute=100000",
            blockedLog);
        Hooks.install(recorder);
        appendOnce();
        assertThat(inLog.await(10, TimeUnit.SECONDS)).as("the first line holds the agent's thread").isTrue();
        for (int i = 0; i < OpRecorder.REPORT_QUEUE + 5; i++) {
            appendOnce();
        }
        assertThat(registry.get(OpMetrics.SLOW_OPS_DROPPED).counter().count()).isEqualTo(5.0);

        logFree.countDown();
        RecorderSink.drain(recorder);
        assertThat(lines).hasSize(1 + OpRecorder.REPORT_QUEUE);
    }

    @Test
    void aSlowOpOverTheLineBudgetIsNotBlamed() throws Exception {
        OpSink recorder = RecorderSink.withLines(registry, "slow.threshold=1ms,slow.log.per.minute=1", lines);
        Hooks.install(recorder);
        slowAppend(); // nothing overlaps it; it takes the minute's one line
        CountDownLatch sending = new CountDownLatch(1);
        Thread network = new Thread(() -> {
            long start = Hooks.enter(Op.TRANSFER_TO, SEGMENT);
            sending.countDown();
            Pauses.await(release);
            Hooks.exit(Op.TRANSFER_TO, start, SEGMENT, 1, null);
        }, NETWORK_THREAD);
        network.setDaemon(true);
        network.start();
        assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();

        slowAppend(); // behind the sendfile of its file, but over the budget
        RecorderSink.drain(recorder);

        assertThat(lines).hasSize(1);
        assertThat(registry.find(OpMetrics.BLOCKED_BEHIND).counters()).as("pairings counted").isEmpty();
    }

    private static void appendOnce() {
        Hooks.exit(Op.RECORDS_APPEND, Hooks.enter(Op.RECORDS_APPEND, SEGMENT), SEGMENT, 100, null);
    }

    private static void slowAppend() {
        long start = Hooks.enter(Op.RECORDS_APPEND, SEGMENT);
        Pauses.sleepAtLeast(3);
        Hooks.exit(Op.RECORDS_APPEND, start, SEGMENT, 100, null);
    }
}
