package io.stallscope.it.mitigate;

import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.slowdisk.PageCache;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * prefetch covers follower fetches: a 2-broker KRaft cluster on loopback (node 1 the controller and the
 * partition's leader, with the agent; node 2 a broker-only follower). The follower is stopped while the
 * leader takes a backlog in rolled segments; the backlog is evicted from the leader's page cache; the
 * follower starts again and catches up with its replica fetcher. Simulated: a slow disk on the leader,
 * where every sendfile or pread of the partition's segment pages not in the page cache waits 100 ms (the
 * LD_PRELOAD shim, which logs each call with its thread). With prefetch the leader's request handlers take
 * every cold read of the follower's fetches and its network threads send only warm pages; without it
 * (the control) the leader's network threads hit the cold pages.
 */
class FollowerPrefetchIT {
    private static final String TOPIC = "replicated";
    private static final int RECORDS = 5000;

    @ParameterizedTest(name = "Kafka {0}, prefetch {1}")
    @CsvSource({"3.6.2, true", "3.6.2, false"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void followerFetchesAreWarmedOnTheLeader(String version, boolean prefetch, @TempDir Path tmp) throws Exception {
        SlowDisk disk = SlowDisk.logTo(tmp.resolve("shim.log"))
            .slowColdReads("/" + TOPIC + "-0/[0-9]+\\.log$", Duration.ofMillis(100), Duration.ZERO);
        MitigatedBroker mb = new MitigatedBroker(version, "leader", prefetch ? "mitigate=prefetch,mitigate.prefetch.check.locks=true" : "", disk);
        try (LocalKafkaBroker leader = new LocalKafkaBroker(mb.spec)) {
            leader.start();
            BrokerSpec followerSpec = BrokerSpec.builder(version).name("follower").nodeId(2)
                .joinKRaftCluster(leader.quorumVoters(), leader.clusterId()).build();
            try (LocalKafkaBroker follower = new LocalKafkaBroker(followerSpec)) {
                follower.start();
                try (Admin admin = KafkaClients.admin(leader)) {
                    admin.createTopics(List.of(new NewTopic(TOPIC, Map.of(0, List.of(1, 2)))
                        .configs(KafkaClients.SMALL_SEGMENTS))).all().get(30, TimeUnit.SECONDS);
                    KillRecoveryIT.waitFor(() -> isr(admin).size() == 2, Duration.ofSeconds(60), "follower never in sync");

                    follower.stop(); // controlled shutdown: the leader shrinks the ISR and takes writes alone
                    KillRecoveryIT.waitFor(() -> isr(admin).equals(List.of(1)), Duration.ofSeconds(60),
                        "ISR did not shrink to the leader");
                    assertThat(KafkaClients.produce(leader, TOPIC, RECORDS, 1024)).isEqualTo(RECORDS);
                    List<Path> rolled = PrefetchIT.rolledSegments(leader, TOPIC);
                    assertThat(rolled).hasSizeGreaterThanOrEqualTo(3);
                    PageCache.evict(rolled);
                    assertThat(PageCache.residentFraction(rolled)).as("evicted").isLessThan(0.2);
                    int callsBefore = disk.calls().size();

                    follower.start(); // its replica fetcher reads the backlog from the leader
                    KillRecoveryIT.waitFor(() -> isr(admin).size() == 2, Duration.ofSeconds(120),
                        "follower did not catch up");

                    Map<Long, String> threads = BrokerThreads.byTid(leader.pid());
                    List<ShimCall> reads = disk.calls().subList(callsBefore, disk.calls().size());
                    List<ShimCall> network = reads.stream()
                        .filter(c -> threads.getOrDefault(c.tid(), "").contains("network-thread")).toList();
                    assertThat(network).as("the leader's network threads sent the rolled segments to the follower")
                        .anyMatch(c -> c.call().equals("sendfile"));
                    PrometheusScrape metrics = PrometheusScrape.scrape(mb.prometheusPort);
                    if (prefetch) {
                        WarmUpCheck.assertNetworkReadWarmPages(network, rolled);
                        assertThat(metrics.event("prefetch", "warmed")).isPositive();
                        assertThat(metrics.event("prefetch", "error")).isZero();
                        assertThat(metrics.event("prefetch", "lock_checked")).as("warm-ups checked for partition locks").isPositive();
                        assertThat(metrics.event("prefetch", "under_partition_lock")).as("warm-ups under a partition lock").isZero();
                        // roughly, as in PrefetchIT: this VM reclaims idle page-cache pages within seconds
                        assertThat(PageCache.residentFraction(rolled)).as("resident after the follower's fetches")
                            .isGreaterThan(0.5);
                    } else {
                        assertThat(network).as("cold reads on the leader's network threads without prefetch")
                            .anyMatch(ShimCall::delayed);
                        WarmUpCheck.assertColdOnNetwork(network, rolled);
                        assertThat(metrics.event("prefetch", "warmed")).isZero();
                    }
                }
            }
        }
    }

    /** The partition's ISR; empty while the broker asked has not yet learned of the new topic. */
    private static List<Integer> isr(Admin admin) throws Exception {
        TopicDescription d;
        try {
            d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC);
        } catch (ExecutionException e) {
            // createTopics returns once the controller has it; the follower's metadata may lag behind (seen in CI)
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return List.of();
            }
            throw e;
        }
        return d.partitions().get(0).isr().stream().map(n -> n.id()).sorted().toList();
    }
}
