package com.example.kafka;

import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.testcontainers.*;
import org.junit.jupiter.api.Test;
import org.testcontainers.kafka.KafkaContainer;

import static io.stallscope.testcontainers.Op.*;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static io.stallscope.testcontainers.StallAssertions.assertThat;
import static java.time.Duration.*;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** KAFKA-9693 on 3.6.2: a segment roll fsyncs the producer-state snapshot on the request handler, under the partition lock. */
class RollSpikeTest {
    @Test
    void caughtWithoutAMitigation() throws Exception {
        StallView rolls = rollsOnASlowDisk(AgentOptions.defaults());
        assertThatThrownBy(() -> assertThat(rolls).op(SNAPSHOT_WRITE).role(REQUEST_HANDLER).hasNoneOver(ofMillis(30)))
                .hasMessageContaining("snapshot_write");
    }

    @Test
    void passesWithRollFlush() throws Exception {
        StallView rolls = rollsOnASlowDisk(AgentOptions.defaults().mitigate(Mitigation.ROLL_FLUSH));
        assertThat(rolls).op(LOG_ROLL).role(REQUEST_HANDLER).hasCountAtLeast(3);
        assertThat(rolls).op(SNAPSHOT_WRITE).role(REQUEST_HANDLER).hasCountAtLeast(3).hasNoneOver(ofMillis(30));
    }

    private static StallView rollsOnASlowDisk(AgentOptions options) throws Exception {
        try (RealDisk xfs = SlowVolumes.xfs();
             KafkaContainer kafka = new KafkaContainer(KafkaImages.apacheKafka("3.6.2"))
                     .withFileSystemBind(xfs.mountPoint().toString(), "/data").withEnv("KAFKA_LOG_DIRS", "/data")
                     .withEnv("KAFKA_METADATA_LOG_DIR", "/tmp/metadata")) {                       // KRaft off the slow disk
            // --device-write-bps 1m: a rolled segment's fsync (1 MiB) takes a second, so the next roll's snapshot fsync
            // queues behind it on every roll (at 25 write IOPS the disk was often idle at the roll: a flaky catch)
            BlockIoLimits.on(xfs.device()).writeBytesPerSecond(1 << 20).applyTo(kafka);
            StallscopeAgent agent = StallscopeAgent.attach(kafka, options);
            kafka.start();
            Topics.createRollingEvery(kafka.getBootstrapServers(), "rolls", 1 << 20);   // forced rolls: 1 MiB segments
            MetricsSnapshot before = agent.snapshot();
            try (SteadyProducer producer = SteadyProducer.start(kafka.getBootstrapServers(), "rolls", 2000, 1024)) {
                producer.awaitAcknowledged(5000, ofSeconds(60));                         // 5 MiB: 4 rolls
            }
            return Stalls.between(before, agent.snapshot());
        }
    }
}
