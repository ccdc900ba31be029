package io.stallscope.it.realdisk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 54 on a real slow disk, small enough for CI: {@link ColdIndexScenario} on Kafka 3.9.2, 64 MiB in 1 MiB
 * segments on a loop-device XFS, reads throttled to 256 KiB/s by the cgroup I/O controller, its indexes cold after a
 * clean restart, 20 s of random old fetches and timestamp lookups. The JVM's own witnesses say safepoints waited 50 ms
 * or more for request handlers; the agent's slow safepoint lines must name the index op of a cold partition that held
 * one up, and name nothing else. The mitigation's A/B and the warm control: scripts/bench-safepoint-index.
 */
class ColdIndexSafepointIT {
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aSafepointHeldUpByAColdIndexNamesTheIndexOp() throws Exception {
        RealDiskRequirement.assumeAvailable();
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "cold-index-safepoint").toAbsolutePath();
        ColdIndexScenario.Result r = ColdIndexScenario.run(
            ColdIndexScenario.Options.of("xfs-cold", "3.9.2", 64, 1L << 20, 256, 20), dir);
        System.out.print(ColdIndexScenario.Result.header() + r.row(1) + "\n");
        r.slowLines().stream().limit(5).forEach(l -> System.out.println("  " + l));
        assertThat(r.safepoints().atLeastMs(ColdIndexScenario.SLOW_MS)).as("safepoints of 50 ms or more (-Xlog:safepoint)")
            .isPositive();
        assertThat(r.jvmNamed()).as("the threads SafepointTimeout named").contains("request-handler");
        List<String> naming = r.slowLines().stream().filter(l -> l.contains(": behind ")).toList();
        assertThat(r.namingLookup()).as("slow safepoint lines naming an index op, of %d", r.slowLines().size()).isPositive();
        assertThat(naming).as("what they name: an index op on a file of the cold topic")
            .allSatisfy(l -> assertThat(l).containsPattern(": behind index_lookup .*/cold-[0-9]+/[0-9]{20}\\.(time)?index\\)"));
    }
}
