package io.stallscope.agent.runtime;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpSink;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * log_append through the real recorder: slow for its lock wait only (its time outside the ops inside it), the ops
 * inside keeping their own lines; and KAFKA-9693's victim named behind the rolling handler's snapshot_write, in the
 * line and the metric.
 */
class LogAppendLinesTest extends UsesHooks {
    private static final String LOG = "/var/lib/kafka/data/orders-0";
    private static final String SEGMENT = LOG + "/00000000000000000000.log";
    private static final String SNAPSHOT = LOG + "/00000000000000004096.snapshot";
    private static final String ROLLER = "data-plane-kafka-request-handler-3";
    private static final String OPTIONS = "slow.threshold=10ms";

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseTheRoller() {
        release.countDown();
    }

    @Test
    void aSlowWriteInsideAnAppendHasItsOwnLineAndTheAppendNone() throws Exception {
        OpSink recorder = RecorderSink.withLines(registry, OPTIONS, lines);
        Hooks.install(recorder);
        long append = Hooks.enter(Op.LOG_APPEND, LOG);
        long write = Hooks.enter(Op.RECORDS_APPEND, SEGMENT);
        Pauses.sleepAtLeast(30);
        Hooks.exit(Op.RECORDS_APPEND, write, SEGMENT, 100, null);
        RecorderSink.drain(recorder);
        assertThat(lines).as("written as the write ends, not held for the append").hasSize(1);
        Hooks.exit(Op.LOG_APPEND, append, LOG, -1, null);
        RecorderSink.drain(recorder);

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("slow op=records_append ").contains("path=" + SEGMENT)
            .doesNotContain("inner=").doesNotContain("behind");
    }

    @Test
    void anAppendThatWaitedBeforeItsWriteIsSlowWithItsLockWait() throws Exception {
        OpSink recorder = RecorderSink.withLines(registry, OPTIONS, lines);
        Hooks.install(recorder);
        long append = Hooks.enter(Op.LOG_APPEND, LOG);
        Pauses.sleepAtLeast(30); // queued for the log's lock
        long write = Hooks.enter(Op.RECORDS_APPEND, SEGMENT);
        Hooks.exit(Op.RECORDS_APPEND, write, SEGMENT, 100, null);
        Hooks.exit(Op.LOG_APPEND, append, LOG, -1, null);
        RecorderSink.drain(recorder);

        assertThat(lines).hasSize(1);
        Matcher m = Pattern.compile("^slow op=log_append duration_ms=([0-9.]+) .* lock_wait_ms=([0-9.]+)").matcher(lines.get(0));
        assertThat(m.find()).as(lines.get(0)).isTrue();
        double duration = Double.parseDouble(m.group(1));
        double lockWait = Double.parseDouble(m.group(2));
        assertThat(lockWait).isGreaterThanOrEqualTo(30).isLessThanOrEqualTo(duration);
        assertThat(lines.get(0)).contains("topic=orders partition=0").doesNotContain("behind");
    }

    @Test
    void theAppendWaitingForTheLockNamesTheRollingHandlersSnapshotWrite() throws Exception {
        OpSink recorder = RecorderSink.withLines(registry, OPTIONS, lines);
        Hooks.install(recorder);
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch victimQueued = new CountDownLatch(1);
        CountDownLatch rolled = new CountDownLatch(1);
        Thread roller = new Thread(() -> {
            long append = Hooks.enter(Op.LOG_APPEND, LOG);
            long roll = Hooks.enter(Op.LOG_ROLL, LOG);
            long write = Hooks.enter(Op.SNAPSHOT_WRITE, SNAPSHOT);
            writing.countDown();
            Pauses.await(victimQueued);
            Pauses.sleepAtLeast(40); // the fsync, with the log's lock held
            Hooks.exit(Op.SNAPSHOT_WRITE, write, SNAPSHOT, -1, null);
            Hooks.exit(Op.LOG_ROLL, roll, LOG, -1, null);
            Hooks.exit(Op.LOG_APPEND, append, LOG, -1, null);
            rolled.countDown();
            Pauses.await(release); // a broker's handler lives on: a dead thread's ops are dropped from the registry
        }, ROLLER);
        roller.setDaemon(true);
        roller.start();
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
        long append = Hooks.enter(Op.LOG_APPEND, LOG);
        victimQueued.countDown();
        assertThat(rolled.await(10, TimeUnit.SECONDS)).isTrue();
        long write = Hooks.enter(Op.RECORDS_APPEND, SEGMENT); // the lock is free now
        Hooks.exit(Op.RECORDS_APPEND, write, SEGMENT, 100, null);
        Hooks.exit(Op.LOG_APPEND, append, LOG, -1, null);
        RecorderSink.drain(recorder);

        String victim = lines.stream().filter(l -> l.contains("thread=\"" + Thread.currentThread().getName() + "\""))
            .filter(l -> l.startsWith("slow op=log_append ")).findFirst().orElseThrow(() -> new AssertionError(lines));
        assertThat(victim).containsPattern(": behind snapshot_write [0-9.]+ ms of the same log on request_handler thread \""
            + ROLLER + "\", overlapping [0-9.]+ ms$");
        Matcher metric = Pattern.compile("stallscope_blocked_behind_seconds_total\\{behind_op=\"snapshot_write\","
            + "behind_role=\"request_handler\",op=\"log_append\",role=\"[a-z_]+\",scope=\"log\"} ([0-9.E-]+)")
            .matcher(registry.scrape());
        assertThat(metric.find()).as(registry.scrape()).isTrue();
        assertThat(Double.parseDouble(metric.group(1))).as("seconds overlapped: the 40 ms fsync at least")
            .isGreaterThanOrEqualTo(0.040);
    }
}
