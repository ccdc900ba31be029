package io.stallscope.it.mitigate;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * mitigate.segment.flush.delay on a real Kafka 3.6.2 broker: the flush each roll schedules is deferred,
 * never dropped. Nothing simulated (the shim only logs fsyncs of the partition's files). Right after the
 * rolls no rolled segment is fsynced and the recovery point has not moved; after the delay every rolled
 * segment is fsynced and the checkpointed recovery point reaches the last rolled segment.
 */
class SegmentFlushDelayIT {
    private static final String TOPIC = "deferred";

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theRolledSegmentsFlushRunsLaterButRuns(@TempDir Path tmp) throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log")).slowFsync("/" + TOPIC + "-0/[0-9]+\\.log$", Duration.ZERO);
        MitigatedBroker mb = new MitigatedBroker("3.6.2", "flush-delay", "mitigate.segment.flush.delay=15s", disk);
        BrokerSpec spec = mb.spec.toBuilder().serverProperty("log.flush.offset.checkpoint.interval.ms", "500").build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            long producedAt = System.nanoTime();
            assertThat(KafkaClients.produce(broker, TOPIC, 4000, 1024)).isEqualTo(4000);
            long lastRolledBase = lastRolledBase(broker);
            Thread.sleep(2000);
            PrometheusScrape early = PrometheusScrape.scrape(mb.prometheusPort);
            if (System.nanoTime() - producedAt < TimeUnit.SECONDS.toNanos(12)) { // still inside the delay
                assertThat(early.event("segment-flush-delay", "deferred")).isGreaterThanOrEqualTo(3);
                assertThat(fsyncedSegments(disk)).as("segments fsynced before the delay").isZero();
                assertThat(recoveryPoint(broker)).isLessThan(lastRolledBase);
            }
            KillRecoveryIT.waitFor(() -> recoveryPoint(broker) >= lastRolledBase, Duration.ofSeconds(60),
                "the recovery point never reached " + lastRolledBase + " (deferred flush dropped?)");
            assertThat(fsyncedSegments(disk)).as("rolled segments fsynced after the delay").isGreaterThanOrEqualTo(3);
            assertThat(PrometheusScrape.scrape(mb.prometheusPort).ops("segment_flush", "scheduler")).isGreaterThanOrEqualTo(3);
        }
    }

    private static long fsyncedSegments(SlowDisk disk) throws Exception {
        return disk.calls().stream().filter(c -> c.call().startsWith("f")).map(c -> c.path()).distinct().count();
    }

    private static long lastRolledBase(KafkaBroker broker) throws Exception {
        try (var files = Files.list(broker.dataDir().resolve(TOPIC + "-0"))) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.matches("\\d{20}\\.log"))
                .mapToLong(n -> Long.parseLong(n.substring(0, 20))).max().orElseThrow();
        }
    }

    /** The partition's recovery point in the broker's recovery-point-offset-checkpoint file, or -1. */
    private static long recoveryPoint(KafkaBroker broker) throws Exception {
        Path file = broker.dataDir().resolve("recovery-point-offset-checkpoint");
        if (!Files.exists(file)) {
            return -1;
        }
        return Files.readAllLines(file).stream().map(l -> l.split(" ")).filter(f -> f.length == 3 && f[0].equals(TOPIC))
            .mapToLong(f -> Long.parseLong(f[2])).findFirst().orElse(-1);
    }
}
