package io.stallscope.it.realdisk;

import io.stallscope.it.bench.LoadAverage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Benchmark, not a CI test (-Dstallscope.bench=true; scripts/bench-safepoint-index; issue 54): {@link ColdIndexScenario}
 * with about 1 GiB (-Dstallscope.bench.backlog.mib, 1024) in 4 MiB segments, reads at -Dstallscope.bench.read.kibps
 * (256) KiB/s, a window of -Dstallscope.bench.seconds (60), Kafka -Dstallscope.bench.kafka (3.9.2); the arms of
 * -Dstallscope.bench.arms (default xfs-cold,ext4-cold,xfs-warm) alternating in an order rotated each of
 * -Dstallscope.bench.rounds (1). Output: target/bench/safepoint-index.md.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class SafepointIndexBenchIT {
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 1);
    private static final int SECONDS = Integer.getInteger("stallscope.bench.seconds", 60);
    private static final int READ_KIBPS = Integer.getInteger("stallscope.bench.read.kibps", 256);
    private static final long BACKLOG_MIB = Long.getLong("stallscope.bench.backlog.mib", 1024);
    private static final long SEGMENT_BYTES = 4L << 20;
    private static final String KAFKA = System.getProperty("stallscope.bench.kafka", "3.9.2");
    private static final List<String> ARMS = List.of(System.getProperty("stallscope.bench.arms", "xfs-cold,ext4-cold,xfs-warm")
        .split(","));

    @Test
    @Timeout(value = 180, unit = TimeUnit.MINUTES)
    void timeToSafepointFromColdIndexes() throws Exception {
        RealDiskRequirement.assumeAvailable();
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "bench").toAbsolutePath();
        Files.createDirectories(dir);
        Path out = dir.resolve("safepoint-index.md");
        Files.writeString(out, "# Time to safepoint from cold indexes (SafepointIndexBenchIT, " + Instant.now() + ", Kafka " + KAFKA
            + ", load " + LoadAverage.now() + ")\n\n" + ROUNDS + " rounds of " + ARMS + "; " + BACKLOG_MIB + " MiB in "
            + (SEGMENT_BYTES >> 20) + " MiB segments over " + ColdIndexScenario.PARTITIONS + " partitions, reads " + READ_KIBPS
            + " KiB/s, " + SECONDS + " s window; witness -Xlog:safepoint; slow from " + ColdIndexScenario.SLOW_MS + " ms\n\n"
            + ColdIndexScenario.Result.header());
        List<ColdIndexScenario.Result> results = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            for (int i = 0; i < ARMS.size(); i++) {
                String arm = ARMS.get((i + round - 1) % ARMS.size());
                ColdIndexScenario.Result r = ColdIndexScenario.run(
                    ColdIndexScenario.Options.of(arm, KAFKA, BACKLOG_MIB, SEGMENT_BYTES, READ_KIBPS, SECONDS),
                    dir.resolve("safepoint-index-" + round + "-" + arm));
                results.add(r);
                Files.writeString(out, r.row(round) + "\n", StandardOpenOption.APPEND);
                System.out.println(r.row(round));
                r.slowLines().stream().limit(3).forEach(l -> System.out.println("  " + l));
            }
        }
        Files.writeString(out, "\nload at end " + LoadAverage.now() + "\n", StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
        for (ColdIndexScenario.Result r : results) {
            if (r.options().warm()) {
                assertThat(r.namingLookup()).as("the warm control names no lookup: " + r.options().arm()).isZero();
            }
        }
    }
}
