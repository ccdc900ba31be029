package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * prefetch on a real broker short of vm.max_map_count: with the limit lowered to leave the broker about
 * 1,000 free mappings (under the agent's 2,048), a reader catching up is served in full, the warm-ups are
 * skipped as skipped_map_headroom, and the broker goes on taking writes. vm.max_map_count is machine-wide:
 * root only, opt-in (-Dstallscope.sysctl=true), only when no other process is anywhere near the lowered limit,
 * restored in a finally, and lowered only for the catch-up itself.
 */
class MapHeadroomIT {
    private static final Path LIMIT = Path.of("/proc/sys/vm/max_map_count");
    private static final String TOPIC = "crowded";
    private static final int RECORDS = 5000;

    @Test
    @EnabledIfSystemProperty(named = "stallscope.sysctl", matches = "true")
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void shortOfMappingsTheWarmUpsStandAsideAndTheReaderIsServed() throws Exception {
        assumeTrue(Files.isWritable(LIMIT), "vm.max_map_count not writable (root needed)");
        MitigatedBroker mb = new MitigatedBroker("3.6.2", "map-headroom", "mitigate=prefetch,mitigate.prefetch.min.bytes=0",
            (SlowDisk) null);
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec)) {
            broker.start();
            KafkaClients.createTopic(broker, TOPIC, 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, TOPIC, RECORDS, 1024)).isEqualTo(RECORDS);

            long original = read(LIMIT);
            long lowered = mappings(broker.pid()) + 1000;
            long others = busiestOtherProcess(broker.pid());
            assumeTrue(others < lowered - 500, "another process has " + others + " mappings: too close to " + lowered);
            long served;
            try {
                Files.writeString(LIMIT, Long.toString(lowered));
                served = KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofSeconds(60));
            } finally {
                Files.writeString(LIMIT, Long.toString(original));
            }
            assertThat(read(LIMIT)).as("vm.max_map_count restored").isEqualTo(original);
            assertThat(served).isEqualTo(RECORDS);

            PrometheusScrape metrics = PrometheusScrape.scrape(mb.prometheusPort);
            System.out.printf("vm.max_map_count %d lowered to %d (broker's mappings + 1000, busiest other process %d);"
                    + " skipped_map_headroom %.0f, warmed %.0f%n", original, lowered, others,
                metrics.event("prefetch", "skipped_map_headroom"), metrics.event("prefetch", "warmed"));
            assertThat(metrics.event("prefetch", "skipped_map_headroom")).as("warm-ups skipped short of mappings")
                .isPositive();
            assertThat(metrics.event("prefetch", "skipped_map_failed")).isZero();
            assertThat(metrics.event("prefetch", "error")).isZero();
            assertThat(KafkaClients.produce(broker, TOPIC, 100, 1024)).as("the broker still takes writes").isEqualTo(100);
        }
    }

    /** A sysctl file in one read: a read at a non-zero offset gets nothing. */
    private static long read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return Long.parseLong(new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim());
        }
    }

    private static long mappings(long pid) throws IOException {
        try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "maps"))) {
            return lines.count();
        }
    }

    private static long busiestOtherProcess(long pid) throws IOException {
        long most = 0;
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs.filter(d -> d.getFileName().toString().matches("\\d+"))::iterator) {
                if (p.getFileName().toString().equals(Long.toString(pid))) {
                    continue;
                }
                try (Stream<String> lines = Files.lines(p.resolve("maps"))) {
                    most = Math.max(most, lines.count());
                } catch (IOException | java.io.UncheckedIOException e) {
                    // the process ended meanwhile
                }
            }
        }
        return most;
    }
}
