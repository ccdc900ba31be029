package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.SlowDisk;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.management.ObjectName;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * prefetch warms only on the thread that handles the fetch. A fetch that waits in the purgatory (less data
 * than fetch.min.bytes) is completed later by whichever thread gets there: here, as it times out, the
 * purgatory's timer thread ("executor-Fetch", which the ExpirationReaper hands expired operations to; one
 * per broker); elsewhere a produce's handler, or a leader change or StopReplica under ReplicaManager's
 * replicaStateChangeLock. DelayedFetch.onComplete re-reads the log through the same
 * ReplicaManager method the prefetch hooks, and on 2.8 to 3.2 that method has no readFromPurgatory flag.
 * Witness: the agent's own self-check (mitigate.prefetch.check.locks), which looks at the warming thread's
 * name and locks, and counts the reads it skipped as completed from the purgatory.
 */
class PurgatoryPrefetchIT {
    private static final String HELD = "held";
    private static final int RECORDS = 2000;

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"2.8.2", "3.6.2"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void noWarmUpOnThePurgatorysThreads(String version) throws Exception {
        MitigatedBroker mb = new MitigatedBroker(version, "purgatory",
            "mitigate=prefetch,mitigate.prefetch.check.locks=true,mitigate.prefetch.min.bytes=0", (SlowDisk) null);
        try (KafkaBroker broker = new LocalKafkaBroker(mb.spec)) {
            broker.start();
            KafkaClients.createTopic(broker, HELD, 1, Map.of());
            assertThat(KafkaClients.produce(broker, HELD, RECORDS, 1024)).isEqualTo(RECORDS);

            // every fetch has less than fetch.min.bytes, waits 300 ms and is completed on the purgatory's timer thread
            Map<String, Object> expiring = waiting(broker, 300);
            assertThat(KafkaClients.consumeAll(expiring, HELD, true, Duration.ofSeconds(60))).isEqualTo(RECORDS);

            PrometheusScrape metrics = PrometheusScrape.scrape(mb.prometheusPort);
            assertThat(metrics.event("prefetch", "on_purgatory_thread")).as("warm-ups on the purgatory's threads").isZero();
            assertThat(metrics.event("prefetch", "under_partition_lock")).as("warm-ups under a partition lock").isZero();
            assertThat(metrics.event("prefetch", "from_purgatory")).as("fetch reads from the purgatory, skipped")
                .isPositive();
            assertThat(metrics.event("prefetch", "lock_checked")).as("warm-ups of the handled fetches").isPositive();
            assertThat(metrics.event("prefetch", "error")).isZero();
        }
    }

    /** A consumer whose fetches wait in the purgatory: far more fetch.min.bytes than there is data. */
    private static Map<String, Object> waiting(KafkaBroker broker, int maxWaitMs) {
        Map<String, Object> c = new HashMap<>(KafkaClients.consumerConfig(broker));
        c.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 64 << 20);
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, maxWaitMs);
        c.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 256 << 10);
        c.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 60_000);
        return c;
    }
}
