package com.example.kafka;

import io.stallscope.it.realdisk.RealDisk;
import io.stallscope.testcontainers.*;
import org.junit.jupiter.api.Test;
import org.testcontainers.kafka.KafkaContainer;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static java.time.Duration.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * LINE's stall: on XFS a network thread's sendfile of a cold active segment holds the inode lock while it waits
 * for the disk, and the request handler's write(2) to that file waits behind it, holding the partition lock.
 */
class WriteBehindSendfileTest {
    @Test
    void caughtOnAThrottledXfsVolumeByTheAnalyzer() throws Exception {
        try (RealDisk xfs = SlowVolumes.xfs();
             KafkaContainer kafka = new KafkaContainer(KafkaImages.apacheKafka("3.9.2"))
                     .withFileSystemBind(xfs.mountPoint().toString(), "/data")
                     .withEnv(Map.of("KAFKA_LOG_DIRS", "/data", "KAFKA_METADATA_LOG_DIR", "/tmp/metadata", "KAFKA_NUM_NETWORK_THREADS", "3"))) {
            BlockIoLimits.on(xfs.device()).readBytesPerSecond(8 << 20).applyTo(kafka);   // --device-read-bps 8MiB
            StallscopeAgent agent = StallscopeAgent.attach(kafka, AgentOptions.defaults()
                    .ops(Op.RECORDS_APPEND, Op.TRANSFER_TO).profile(true).profileTrigger(ofMillis(100)));
            kafka.start();
            String bootstrap = kafka.getBootstrapServers();
            Topics.create(bootstrap, "line", Map.of("segment.bytes", Integer.toString(1 << 30)));   // one active segment
            Backlog.write(bootstrap, "line", 64 << 20);
            PageCacheEviction.evictSegments(kafka, "/data/line-0");                                  // a cold backlog
            try (SteadyProducer producer = SteadyProducer.start(bootstrap, "line", 500, 1024, Map.of("acks", "1"))) {
                producer.awaitAcknowledged(2500, ofSeconds(30));
                CatchUpConsumer.readFromStart(bootstrap, "line", ofMinutes(3));                    // reads it cold
            }
            List<Path> captures = AgentCaptures.await(agent, StallReport.dir().resolve("line"), ofSeconds(60));
            assertThat(StallReport.findings(captures, StallReport.dir().resolve("line.html")))
                    .extracting(f -> f.kind()).contains("write-behind-sendfile");
        }
    }
}
