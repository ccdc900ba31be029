package io.stallscope.agent.runtime;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.WovenKafka;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A remote read's queue wait and run, on Kafka's own classes (4.1.2 and 4.4.0, where they are Java in kafka-storage;
 * 3.6-4.0 have them in kafka_2.13 beside Scala classes this test does not load): RemoteLogManager.asyncRead, woven,
 * submits Kafka's RemoteLogReader, woven, to Kafka's RemoteStorageThreadPool of one thread. The first read's callback
 * holds that thread until the second read has queued behind it. The RemoteLogManager is allocated without its
 * constructor and given only what asyncRead and the reader use (the pool, topic stats, the fetch quota, the read
 * timer): its read() fails for want of a log, as a read of an unknown partition does, and the reader hands the error to
 * the callback. Both reads' waits and runs are timed on the pool's thread with their partition; the callbacks get the
 * same results as without the agent.
 */
class RemoteReadQueueTest extends UsesHooks {
    private static final String PKG = "org.apache.kafka.server.log.remote.storage.";

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @ParameterizedTest
    @ValueSource(strings = {"4.1.2", "4.4.0"})
    void aReadQueuedBehindAnotherIsTimedWaitingAndRunning(String version) throws Exception {
        List<String> stock;
        try (WovenKafka kafka = WovenKafka.of(version, true, Map.of())) {
            stock = twoReads(kafka, "stock-reader");
        }
        Map<String, byte[]> woven = new HashMap<>();
        woven.put(PKG + "RemoteLogManager", WovenKafka.weave(version, PKG + "RemoteLogManager",
            PointAdvice.of(KafkaTargets.REMOTE_READ_SUBMIT)));
        woven.put(PKG + "RemoteLogReader", WovenKafka.weave(version, PKG + "RemoteLogReader",
            PointAdvice.of(KafkaTargets.REMOTE_READ)));
        OpSink recorder = RecorderSink.withLines(registry, "slow.threshold=0ms,slow.log.per.minute=1000", lines);
        Hooks.install(recorder);
        List<String> withAgent;
        try (WovenKafka kafka = WovenKafka.of(version, true, woven)) {
            withAgent = twoReads(kafka, "remote-log-reader"); // Kafka's own prefix for the pool
        }
        RecorderSink.drain(recorder);
        lines.forEach(l -> System.out.println(version + ": " + l)); // the lines as an operator reads them

        assertThat(withAgent).isEqualTo(stock).hasSize(2).allSatisfy(r -> assertThat(r).startsWith("error "));
        String scrape = registry.scrape();
        assertThat(scrape).contains("stallscope_op_seconds_count{op=\"remote_queue_wait\",role=\"other\"} 2")
            .contains("stallscope_op_seconds_count{op=\"remote_read\",role=\"other\"} 2")
            .contains("stallscope_op_errors_total{op=\"remote_read\",role=\"other\"} 0.0");
        List<String> waits = lines.stream().filter(l -> l.startsWith("slow op=remote_queue_wait ")).collect(Collectors.toList());
        assertThat(waits).hasSize(2).allSatisfy(l -> assertThat(l).containsPattern(" thread=\"remote-log-reader[^\"]*\" role=other ")
            .containsPattern(" topic=orders partition=[37] path=remote:orders-[37](: |$)"));
        // the read of partition 7 queued while the pool's one thread read partition 3: its line names that read (on the
        // same thread, which took it up next); the first read queued behind nothing
        assertThat(waits).filteredOn(l -> l.contains(" partition=7 ")).singleElement().satisfies(l -> assertThat(l)
            .containsPattern(": behind remote_read [0-9.]+ ms of orders-3 in the same reader pool on other thread "
                + "\"remote-log-reader[^\"]*\", overlapping [0-9.]+ ms$"));
        assertThat(waits).filteredOn(l -> l.contains(" partition=3 ")).singleElement().satisfies(l -> assertThat(l)
            .doesNotContain(": behind "));
        assertThat(lines.stream().filter(l -> l.startsWith("slow op=remote_read "))).hasSize(2)
            .allSatisfy(l -> assertThat(l).contains(" role=other ").containsPattern(" topic=orders partition=[37] "));
        // the second read's wait came before its run, each as an op of its own
        int wait7 = indexOf("slow op=remote_queue_wait", "partition=7");
        int read7 = indexOf("slow op=remote_read", "partition=7");
        assertThat(wait7).isNotNegative().isLessThan(read7);
    }

    private int indexOf(String prefix, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix + " ") && lines.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Two reads through asyncRead on a pool of one thread: the first's callback holds the thread until the second is
     * queued. Returns what each callback got.
     */
    private static List<String> twoReads(WovenKafka kafka, String threadPrefix) throws Exception {
        Class<?> rlmType = kafka.kafkaClass(PKG + "RemoteLogManager");
        Object rlm = allocate(rlmType);
        Class<?> poolType = kafka.kafkaClass("org.apache.kafka.storage.internals.log.RemoteStorageThreadPool");
        java.util.concurrent.ThreadPoolExecutor pool = (java.util.concurrent.ThreadPoolExecutor) poolType
            .getConstructor(String.class, int.class, int.class).newInstance(threadPrefix, 1, 10);
        Class<?> metricsType = kafka.kafkaClass("org.apache.kafka.common.metrics.Metrics");
        Object metrics = metricsType.getConstructor().newInstance();
        try {
            set(rlm, "remoteStorageReaderThreadPool", pool);
            set(rlm, "brokerTopicStats", kafka.kafkaClass("org.apache.kafka.storage.log.metrics.BrokerTopicStats")
                .getConstructor(boolean.class).newInstance(true)); // with the remote-storage meters
            Class<?> quotaConfig = kafka.kafkaClass("org.apache.kafka.server.log.remote.quota.RLMQuotaManagerConfig");
            Class<?> quotaType = kafka.kafkaClass("org.apache.kafka.server.quota.QuotaType");
            Class<?> time = kafka.kafkaClass("org.apache.kafka.common.utils.Time");
            set(rlm, "rlmFetchQuotaManager", kafka.kafkaClass("org.apache.kafka.server.log.remote.quota.RLMQuotaManager")
                .getConstructor(quotaConfig, metricsType, quotaType, String.class, time)
                .newInstance(quotaConfig.getConstructor(long.class, int.class, int.class).newInstance(Long.MAX_VALUE, 11, 1),
                    metrics, quotaType.getField("RLM_FETCH").get(null), "test", time.getField("SYSTEM").get(null)));
            // yammer's classes as Kafka's loader has them
            Object yammer = kafka.kafkaClass("com.yammer.metrics.core.MetricsRegistry").getConstructor().newInstance();
            set(rlm, "remoteReadTimer", yammer.getClass().getMethod("newTimer", Class.class, String.class)
                .invoke(yammer, RemoteReadQueueTest.class, "remote-read"));

            Method asyncRead = rlmType.getMethod("asyncRead",
                kafka.kafkaClass("org.apache.kafka.storage.internals.log.RemoteStorageFetchInfo"), Consumer.class);
            List<String> results = new CopyOnWriteArrayList<>();
            CountDownLatch firstRunning = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            Consumer<Object> holding = r -> {
                results.add(describe(r));
                firstRunning.countDown();
                Pauses.await(letGo);
            };
            Consumer<Object> plain = r -> results.add(describe(r));
            Future<?> first = (Future<?>) asyncRead.invoke(rlm, fetchInfo(kafka, 3), holding);
            assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
            Future<?> second = (Future<?>) asyncRead.invoke(rlm, fetchInfo(kafka, 7), plain);
            Pauses.until(() -> pool.getQueue().size() == 1);
            Pauses.sleepAtLeast(20);
            letGo.countDown();
            first.get(10, TimeUnit.SECONDS);
            second.get(10, TimeUnit.SECONDS);
            return results;
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            poolType.getMethod("removeMetrics").invoke(pool);
            metricsType.getMethod("close").invoke(metrics);
        }
    }

    /** RemoteStorageFetchInfo(maxBytes, minOneMessage, TopicPartition (4.1) or TopicIdPartition (4.2+), data, isolation). */
    private static Object fetchInfo(WovenKafka kafka, int partition) throws Exception {
        Class<?> info = kafka.kafkaClass("org.apache.kafka.storage.internals.log.RemoteStorageFetchInfo");
        Class<?> uuid = kafka.kafkaClass("org.apache.kafka.common.Uuid");
        Object topicId = uuid.getField("ONE_UUID").get(null);
        Class<?> tpType = kafka.kafkaClass("org.apache.kafka.common.TopicPartition");
        Object tp = tpType.getConstructor(String.class, int.class).newInstance("orders", partition);
        Class<?> dataType = kafka.kafkaClass("org.apache.kafka.common.requests.FetchRequest$PartitionData");
        Object data = dataType.getConstructor(uuid, long.class, long.class, int.class, Optional.class)
            .newInstance(topicId, 0L, 0L, 1 << 20, Optional.empty());
        Class<?> isolation = kafka.kafkaClass("org.apache.kafka.server.storage.log.FetchIsolation");
        Object highWatermark = isolation.getField("HIGH_WATERMARK").get(null);
        java.lang.reflect.Constructor<?> c = info.getConstructors()[0];
        Class<?> partitionType = c.getParameterTypes()[2];
        Object p = partitionType == tpType ? tp
            : partitionType.getConstructor(uuid, tpType).newInstance(topicId, tp);
        return c.newInstance(1 << 20, true, p, data, highWatermark);
    }

    /** RemoteLogReadResult: its error's class (a record's error(), a public field before), or its data's presence. */
    private static String describe(Object result) {
        try {
            Object error;
            try {
                error = result.getClass().getMethod("error").invoke(result);
            } catch (NoSuchMethodException e) {
                error = result.getClass().getField("error").get(result);
            }
            Optional<?> e = (Optional<?>) error;
            return e.isPresent() ? "error " + e.get().getClass().getName() : "data";
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object allocate(Class<?> type) throws Exception {
        Field f = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
        f.setAccessible(true);
        Object unsafe = f.get(null);
        return unsafe.getClass().getMethod("allocateInstance", Class.class).invoke(unsafe, type);
    }

    private static void set(Object target, String name, Object value) throws Exception {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }
}
