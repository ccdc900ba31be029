package io.stallscope.testcontainers;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.kafka.KafkaContainer;

import java.time.Duration;
import java.util.Map;

import static io.stallscope.testcontainers.Op.RECORDS_APPEND;
import static io.stallscope.testcontainers.Op.TRANSFER_TO;
import static io.stallscope.testcontainers.Role.NETWORK;
import static io.stallscope.testcontainers.Role.REQUEST_HANDLER;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two brokers of the same Kafka side by side: a comparison of equal brokers passes, one against a broker made
 * really slower fails, and the workloads do what they say against a real broker. One pair of containers for
 * the class (each start costs about 20 s on this machine). {@code -Dab.noise.runs=N} repeats the comparison
 * of equal brokers N times and prints each, to measure the method's noise.
 */
@Timeout(900)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AbComparisonContainerTest {
    /** The slowed broker's CPU quota: a tenth of a CPU (a quarter gave only 2.2x on a quiet machine), so the append's write(2) is often descheduled mid-call. */
    private static final long CPU_QUOTA_MICROS = 10_000;
    private static final int RATE = 2000;
    private static final String LOG_DIR = "/tmp/stallscope-logs";

    private static KafkaContainer baseline;
    private static KafkaContainer candidate;
    private static StallscopeAgent baselineAgent;
    private static StallscopeAgent candidateAgent;

    @BeforeAll
    static void start() {
        ContainerEngine.require();
        baseline = new KafkaContainer(ApacheKafkaLikeImage.of(ContainerEngine.VERSION)).withEnv("KAFKA_LOG_DIRS", LOG_DIR);
        candidate = new KafkaContainer(ApacheKafkaLikeImage.of(ContainerEngine.VERSION)).withEnv("KAFKA_LOG_DIRS", LOG_DIR);
        AgentOptions options = AgentOptions.defaults().ops(RECORDS_APPEND, TRANSFER_TO);
        baselineAgent = StallscopeAgent.attach(baseline, options);
        candidateAgent = StallscopeAgent.attach(candidate, options);
        baseline.start();
        candidate.start();
    }

    @AfterAll
    static void stop() {
        if (candidate != null) {
            candidate.stop();
        }
        if (baseline != null) {
            baseline.stop();
        }
    }

    private static AbResult compare(String topic, int rounds, double quantile, long minOps) throws Exception {
        Topics.create(baseline.getBootstrapServers(), topic, Map.of());
        Topics.create(candidate.getBootstrapServers(), topic, Map.of());
        try (SteadyProducer a = SteadyProducer.start(baseline.getBootstrapServers(), topic, RATE, 512);
             SteadyProducer b = SteadyProducer.start(candidate.getBootstrapServers(), topic, RATE, 512)) {
            a.awaitAcknowledged(4000, ofSeconds(60));                          // warm-up (the JIT), not measured
            b.awaitAcknowledged(4000, ofSeconds(60));
            return AbComparison.of(baselineAgent, candidateAgent).op(RECORDS_APPEND).role(REQUEST_HANDLER)
                    .quantile(quantile).rounds(rounds).minOpsPerRound(minOps).run(ofSeconds(90));
        }
    }

    @Test
    @Order(1)
    void equalBrokersShowNoRegression() throws Exception {
        int runs = Integer.getInteger("ab.noise.runs", 1);
        for (int run = 1; run <= runs; run++) {
            AbResult result = compare("ab-equal-" + run, 5, 0.999, 5000);
            System.out.printf("equal brokers, run %d of %d: ratio of estimates %.2f, rounds slower beyond 1.5x %d%n%s",
                    run, runs, result.estimateRatio(), result.roundsSlowerBeyond(1.5), result.evidence());
            StallAssertions.assertThat(result).hasNoRegressionBeyond(1.5);
        }
    }

    @Test
    @Order(2)
    void aBrokerStarvedOfCpuIsCaught() throws Exception {
        // a CPU quota on the running candidate, as the engine's --cpu-quota sets: a real slow-down of its threads,
        // which the same workload on the unlimited baseline does not have
        CpuQuota quota;
        try {
            quota = CpuQuota.limit(candidate, CPU_QUOTA_MICROS);
        } catch (java.io.IOException e) {
            String why = "cannot set a CPU quota on the candidate's cgroup (needs root and a cpu controller): " + e;
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException(why, e);
            }
            org.junit.jupiter.api.Assumptions.abort(why);
            return;
        }
        try (quota) {
            // p99 over 250 appends a round (the 3rd slowest), 2 rounds: starved, the candidate batches more records
            // per append and makes about 50 appends a second, so a round of p99.9's 5,000 would take 100 s; its
            // appends are still ~95 ms against the baseline's ~0.5 ms (CI run of 2026-11-29: 1,000 a round, 199x),
            // a margin that needs neither a third round nor more appends (CI time)
            AbResult result = compare("ab-starved", 2, 0.99, 250);
            System.out.printf("candidate at %d%% of a CPU: ratio of estimates %.2f%n%s", CPU_QUOTA_MICROS / 1000,
                    result.estimateRatio(), result.evidence());
            StallAssertions.assertThat(result).showsRegressionBeyond(1.5);
        }
    }

    @Test
    @Order(3)
    void aColdBacklogIsReadFromTheStartThroughTheNetworkThreads() throws Exception {
        String bootstrap = baseline.getBootstrapServers();
        Topics.create(bootstrap, "backlog", Map.of());
        long written = Backlog.write(bootstrap, "backlog", 16L << 20);
        int evicted = PageCacheEviction.evictSegments(baseline, LOG_DIR + "/backlog-0");
        MetricsSnapshot before = baselineAgent.snapshot();
        CatchUpConsumer.Result read = CatchUpConsumer.readFromStart(bootstrap, "backlog", ofSeconds(120));
        StallView between = Stalls.between(before, baselineAgent.snapshot());

        assertThat(written).isEqualTo(16L << 10);
        assertThat(evicted).isGreaterThanOrEqualTo(1);
        assertThat(read.records()).isEqualTo(written);
        // the fetches were served by sendfile on the network threads: the agent timed them
        assertThat(between.op(TRANSFER_TO).role(NETWORK).count()).isGreaterThan(0);
        assertThat(between.op(TRANSFER_TO).role(NETWORK).sum()).isGreaterThan(Duration.ZERO);
    }
}
