package io.stallscope.it.capture;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A full disk under profile.dir: a 256 KiB tmpfs (a real file system that really fills; mounting needs
 * root, so without it the test is skipped and says why). The rolling chunks fill it within seconds; the
 * agent must say so in one error line, stop recording, count the error, and the broker must go on taking
 * writes, including through a stall that would otherwise have been captured.
 */
class CaptureDiskFullIT {
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aFullDiskStopsCapturingWithOneLineAndTheBrokerGoesOn(@TempDir Path tmp) throws Exception {
        Path small = Files.createDirectory(tmp.resolve("small-disk"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small.toString())
            .redirectErrorStream(true).start();
        String mountOut = new String(mount.getInputStream().readAllBytes());
        boolean mounted = mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0;
        Assumptions.assumeTrue(mounted, "cannot mount a small tmpfs here (needs root): " + mountOut.strip());
        try {
            // the later profile.dir wins over the one CaptureBroker sets
            CaptureBroker onSmall = new CaptureBroker("3.9.2", tmp, "profile.trigger=200ms,profile.cooldown=0,profile.chunk=1s,"
                + "profile.dir=" + small.resolve("captures"));
            try (KafkaBroker broker = new LocalKafkaBroker(onSmall.spec)) {
                broker.start();
                KafkaClients.createTopic(broker, CaptureBroker.TOPIC, 1, Map.of());
                try (StallProducers producers = new StallProducers(broker, CaptureBroker.TOPIC, 4)) {
                    StallCaptureIT.waitForAcks(producers, 200);
                    String line = StallCaptureIT.waitForLog(broker, "ERROR [stallscope-capture] profile:");
                    assertThat(line).contains("No space left on device").contains("recording stopped");
                    onSmall.stallOnce();
                    Thread.sleep(3000);
                    long before = producers.acked();
                    Thread.sleep(1000);
                    assertThat(producers.acked()).as("the broker still takes writes").isGreaterThan(before);
                }
                List<String> errors = Files.readAllLines(broker.logFile()).stream()
                    .filter(l -> l.contains("(stallscope)") && (l.contains("ERROR") || l.contains("WARN [stallscope-capture]"))).toList();
                assertThat(errors).as("one line for the full disk").hasSize(1);
                assertThat(onSmall.captures("error")).isGreaterThanOrEqualTo(1.0);
                assertThat(onSmall.captures("written")).isZero();
            }
        } finally {
            new ProcessBuilder("umount", small.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
