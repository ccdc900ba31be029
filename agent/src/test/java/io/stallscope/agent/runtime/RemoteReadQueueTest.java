package io.stallscope.agent.runtime;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.WovenKafka;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A remote read's queue wait and run, on Kafka's own classes (3.9.2, where they are Java in kafka_2.13 beside the Scala
 * classes they use, loaded with Scala's library; 4.1.2 and 4.4.0, where they are Java in kafka-storage):
 * RemoteLogManager.asyncRead, woven, submits Kafka's RemoteLogReader, woven, to Kafka's RemoteStorageThreadPool of one
 * thread. The first read's callback holds that thread until the second read has queued behind it. The RemoteLogManager
 * is allocated without its constructor and given only what asyncRead and the reader use (the pool, topic stats, the
 * fetch quota, the read timer): its read() fails for want of a log, as a read of an unknown partition does, and the
 * reader hands the error to the callback. Both reads' waits and runs are timed on the pool's thread with their
 * partition; the callbacks get the same results as without the agent.
 *
 * <p>And a queued read whose fetch expires: Kafka's own DelayedRemoteFetch (Scala in kafka.server up to 4.1, Java in
 * the purgatory package from 4.2), woven, made for the second read as ReplicaManager makes it (the read's Future and
 * fetchInfo; the collections and callbacks it needs only to complete are left empty), and its onExpiration run on a
 * thread named as Kafka's purgatory timer names its own, while the read is queued: Kafka cancels the read, which never
 * runs, and its wait is timed up to then, failed, paired with the read that held the pool. 3.6-3.8 are not run: their
 * reader's topic stats want a whole KafkaConfig with tiered storage on; their DelayedRemoteFetch has 3.9's fields and
 * differs only in cancelling with interruption (cancel(true)), the same for a queued read (KafkaTargetsTest resolves it).
 */
class RemoteReadQueueTest extends UsesHooks {
    private static final String PKG = "org.apache.kafka.server.log.remote.storage.";
    /** RemoteLogManager and RemoteLogReader up to 4.0. */
    private static final String OLD_PKG = "kafka.log.remote.";
    /** The thread of Kafka's RemoteFetch purgatory timer (SystemTimer's "executor-" + the purgatory's name). */
    private static final String EXPIRY_THREAD = "executor-RemoteFetch";

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    /** Reads run on one Kafka, on threads named with {@code threadPrefix}: what each returned. */
    interface Reads {
        List<String> run(WovenKafka kafka, String version, String threadPrefix) throws Exception;
    }

    /**
     * The same reads on stock Kafka, then on Kafka woven as the agent weaves it (with the expiry point or not) and the
     * agent's recorder installed: what they returned, stock first; the lines printed as an operator reads them.
     */
    private List<List<String>> stockThenWoven(String version, boolean expiry, Reads reads) throws Exception {
        List<String> stock;
        try (WovenKafka kafka = WovenKafka.withBroker(version, Map.of())) {
            stock = reads.run(kafka, version, "stock-reader");
        }
        OpSink recorder = RecorderSink.withLines(registry, "slow.threshold=0ms,slow.log.per.minute=1000", lines);
        Hooks.install(recorder);
        List<String> withAgent;
        try (WovenKafka kafka = WovenKafka.withBroker(version, woven(version, expiry))) {
            withAgent = reads.run(kafka, version, "remote-log-reader"); // Kafka's own prefix for the pool
        }
        RecorderSink.drain(recorder);
        lines.forEach(l -> System.out.println(version + ": " + l));
        return List.of(stock, withAgent);
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.9.2", "4.1.2", "4.4.0"})
    void aReadQueuedBehindAnotherIsTimedWaitingAndRunning(String version) throws Exception {
        List<List<String>> runs = stockThenWoven(version, false, RemoteReadQueueTest::twoReads);
        List<String> stock = runs.get(0);
        List<String> withAgent = runs.get(1);

        assertThat(withAgent).isEqualTo(stock).hasSize(2).allSatisfy(r -> assertThat(r).startsWith("error "));
        String scrape = registry.scrape();
        assertThat(scrape).contains("stallscope_op_seconds_count{op=\"remote_queue_wait\",role=\"other\"} 2")
            .contains("stallscope_op_seconds_count{op=\"remote_read\",role=\"other\"} 2")
            .contains("stallscope_op_errors_total{op=\"remote_read\",role=\"other\"} 0.0")
            .contains("stallscope_op_errors_total{op=\"remote_queue_wait\",role=\"other\"} 0.0");
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
        assertThat(queuedTasks()).as("the agent's table of queued reads").isZero();
    }

    /**
     * The second read's fetch expires while it is queued: Kafka's DelayedRemoteFetch.onExpiration cancels it and it never
     * runs (its callback is never called, with the agent or without). Its wait is timed up to the expiry on the expiring
     * thread, as remote_queue_wait failed (stallscope_op_errors_total), its line saying so and naming the read that held
     * the pool; its entry in the agent's table of queued reads is gone.
     */
    @ParameterizedTest
    @ValueSource(strings = {"3.9.2", "4.1.2", "4.4.0"})
    void aReadCancelledInTheQueueWhenItsFetchExpiresIsTimedAsExpired(String version) throws Exception {
        List<List<String>> runs = stockThenWoven(version, true, RemoteReadQueueTest::expiringRead);
        List<String> stock = runs.get(0);
        List<String> withAgent = runs.get(1);

        assertThat(withAgent).as("only the first read ran").isEqualTo(stock).singleElement().asString().startsWith("error ");
        String scrape = registry.scrape();
        assertThat(scrape).contains("stallscope_op_seconds_count{op=\"remote_queue_wait\",role=\"other\"} 2")
            .contains("stallscope_op_errors_total{op=\"remote_queue_wait\",role=\"other\"} 1.0")
            .contains("stallscope_op_seconds_count{op=\"remote_read\",role=\"other\"} 1");
        List<String> waits = lines.stream().filter(l -> l.startsWith("slow op=remote_queue_wait ")).collect(Collectors.toList());
        assertThat(waits).filteredOn(l -> l.contains(" partition=3 ")).singleElement().satisfies(l -> assertThat(l)
            .containsPattern(" thread=\"remote-log-reader[^\"]*\" role=other ").doesNotContain(" failed="));
        assertThat(waits).filteredOn(l -> l.contains(" partition=7 ")).singleElement().satisfies(l -> {
            assertThat(l).containsPattern("^slow op=remote_queue_wait duration_ms=[0-9.]+ thread=\"" + EXPIRY_THREAD
                    + "\" role=other topic=orders partition=7 path=remote:orders-7 failed=fetch_expired \\(the fetch "
                    + "expired while the read was queued; the read was cancelled and never ran\\): behind "
                    + "remote_read [0-9.]+ ms so far of orders-3 in the same reader pool on other thread "
                    + "\"remote-log-reader[^\"]*\", overlapping [0-9.]+ ms$");
            assertThat(Double.parseDouble(l.replaceAll(".* duration_ms=([0-9.]+) .*", "$1")))
                .as("queued for 20 ms at least").isGreaterThanOrEqualTo(20.0);
        });
        assertThat(lines).filteredOn(l -> l.startsWith("slow op=remote_read ")).singleElement().asString()
            .contains(" partition=3 ");
        assertThat(queuedTasks()).as("the agent's table of queued reads").isZero();
    }

    private int indexOf(String prefix, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix + " ") && lines.get(i).contains(part)) {
                return i;
            }
        }
        return -1;
    }

    /** RemoteLogManager and RemoteLogReader with their points' advice, and DelayedRemoteFetch with the expiry's. */
    private static Map<String, byte[]> woven(String version, boolean expiry) throws Exception {
        String pkg = readerPackage(version);
        Map<String, byte[]> woven = new HashMap<>();
        woven.put(pkg + "RemoteLogManager", WovenKafka.weave(version, pkg + "RemoteLogManager",
            PointAdvice.of(KafkaTargets.REMOTE_READ_SUBMIT)));
        woven.put(pkg + "RemoteLogReader", WovenKafka.weave(version, pkg + "RemoteLogReader",
            PointAdvice.of(KafkaTargets.REMOTE_READ)));
        if (expiry) {
            woven.put(delayedRemoteFetch(version), WovenKafka.weave(version, delayedRemoteFetch(version),
                PointAdvice.of(KafkaTargets.REMOTE_FETCH_EXPIRY)));
        }
        return woven;
    }

    private static String readerPackage(String version) {
        return version.compareTo("4.1") < 0 ? OLD_PKG : PKG;
    }

    private static String delayedRemoteFetch(String version) {
        return version.compareTo("4.2") < 0 ? "kafka.server.DelayedRemoteFetch"
            : "org.apache.kafka.server.purgatory.DelayedRemoteFetch";
    }

    /** What a test does while the second read is queued behind the first. */
    interface WhileQueued {
        void run(ReaderPool reader, Future<?> second, Object secondInfo) throws Exception;
    }

    /**
     * Two reads through asyncRead on a pool of one thread: the first's callback holds the thread until the second is
     * queued and {@code whileQueued} ran; then the first is let go and the pool takes the second up. Returns what each
     * callback got.
     */
    private static List<String> secondQueuedBehindFirst(WovenKafka kafka, String version, String threadPrefix,
                                                        WhileQueued whileQueued) throws Exception {
        try (ReaderPool reader = new ReaderPool(kafka, version, threadPrefix)) {
            List<String> results = new CopyOnWriteArrayList<>();
            CountDownLatch firstRunning = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            Consumer<Object> holding = r -> {
                results.add(describe(r));
                firstRunning.countDown();
                Pauses.await(letGo);
            };
            Future<?> first = reader.asyncRead(fetchInfo(kafka, 3), holding);
            assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
            Object secondInfo = fetchInfo(kafka, 7);
            Future<?> second = reader.asyncRead(secondInfo, r -> results.add(describe(r)));
            Pauses.until(() -> reader.pool.getQueue().size() == 1);
            whileQueued.run(reader, second, secondInfo);
            letGo.countDown();
            first.get(10, TimeUnit.SECONDS);
            Pauses.until(() -> reader.pool.getCompletedTaskCount() == 2); // a cancelled task taken up returns at once
            if (!second.isCancelled()) {
                second.get(10, TimeUnit.SECONDS);
            }
            return results;
        }
    }

    /** The second read queued for 20 ms behind the first. */
    private static List<String> twoReads(WovenKafka kafka, String version, String threadPrefix) throws Exception {
        return secondQueuedBehindFirst(kafka, version, threadPrefix, (reader, second, info) -> Pauses.sleepAtLeast(20));
    }

    /**
     * As {@link #twoReads}, but while the second read is queued its fetch expires: Kafka's DelayedRemoteFetch, made for
     * it, runs onExpiration on a thread named as Kafka's purgatory timer names its own, and cancels it.
     */
    private static List<String> expiringRead(WovenKafka kafka, String version, String threadPrefix) throws Exception {
        return secondQueuedBehindFirst(kafka, version, threadPrefix, (reader, second, secondInfo) -> {
            Object delayed = delayedRemoteFetch(kafka, version, second, secondInfo);
            Pauses.sleepAtLeast(20);
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread expiry = new Thread(() -> {
                try {
                    delayed.getClass().getMethod("onExpiration").invoke(delayed);
                } catch (Throwable t) {
                    failed.set(t);
                }
            }, EXPIRY_THREAD);
            expiry.start();
            expiry.join(10_000);
            assertThat(failed.get()).as("Kafka's onExpiration").isNull();
            assertThat(second.isCancelled()).as("Kafka cancelled the queued read").isTrue();
        });
    }

    /**
     * Kafka's DelayedRemoteFetch for one read, as ReplicaManager makes it: the read's Future and fetchInfo (one of each up
     * to 4.1; from 4.2 maps by the read's TopicIdPartition), a fetch from a consumer; what it uses only to complete (the
     * partitions' statuses, the local reads, the ReplicaManager or callbacks) empty or null. By its constructor, but in
     * 4.0-4.1 (see there).
     */
    private static Object delayedRemoteFetch(WovenKafka kafka, String version, Future<?> task, Object fetchInfo)
        throws Exception {
        Constructor<?> c = kafka.kafkaClass(delayedRemoteFetch(version)).getConstructors()[0];
        Class<?>[] types = c.getParameterTypes();
        Object[] args = new Object[types.length];
        if (types[0] == Map.class) {
            // 4.2+: (tasks, results, infos, delayMs, statuses, FetchParams, local reads, partitionOrException, callback)
            Object partition = fetchInfo.getClass().getMethod("topicIdPartition").invoke(fetchInfo);
            args[0] = Map.of(partition, task);
            args[1] = Map.of(partition, new CompletableFuture<>());
            args[2] = Map.of(partition, fetchInfo);
            args[3] = 500L;
            args[4] = Map.of();
            args[5] = fetchParams(types[5]);
            args[6] = Map.of();
            args[7] = (Consumer<Object>) tp -> { };
            args[8] = (Consumer<Object>) response -> { };
        } else if (version.compareTo("4.0") >= 0) {
            // 4.0-4.1: the constructor stores its arguments and refuses a follower's fetch, but first Kafka's Logging trait
            // registers its log4j controller, from 4.0 kafka-server's LoggingController over log4j 2, which this loader
            // leaves out: allocated instead, with the two fields onExpiration reads (the Future; the fetchInfo, in its
            // debug line when the cancel fails)
            Object fetch = allocate(c.getDeclaringClass());
            set(fetch, "remoteFetchTask", task);
            set(fetch, "remoteFetchInfo", fetchInfo);
            return fetch;
        } else {
            // up to 3.9: (task, result, fetchInfo[, delayMs], statuses, FetchParams, local reads, ReplicaManager, callback)
            for (int i = 0; i < types.length; i++) {
                Class<?> t = types[i];
                args[i] = t == Future.class ? task : t == CompletableFuture.class ? new CompletableFuture<>()
                    : t.isInstance(fetchInfo) ? fetchInfo : t == long.class ? 500L
                    : t.getSimpleName().equals("FetchParams") ? fetchParams(t) : null;
            }
        }
        return c.newInstance(args);
    }

    /** A consumer's FetchParams (replica id -1: DelayedRemoteFetch refuses a follower's). */
    private static Object fetchParams(Class<?> type) throws Exception {
        Constructor<?> c = null;
        for (Constructor<?> k : type.getConstructors()) {
            if (c == null || k.getParameterCount() < c.getParameterCount()) {
                c = k;
            }
        }
        Class<?>[] types = c.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            args[i] = t == short.class ? (short) 17 : t == int.class ? -1 : t == long.class ? 500L
                : t == boolean.class ? false : t == Optional.class ? Optional.empty()
                : t.isEnum() ? t.getField("HIGH_WATERMARK").get(null) : null;
        }
        return c.newInstance(args);
    }

    /** The agent's table of queued reads (QueuedTasks, on the bootstrap class path): its entries now. */
    private static int queuedTasks() throws Exception {
        Method size = Class.forName("io.stallscope.agent.bootstrap.QueuedTasks").getDeclaredMethod("size");
        size.setAccessible(true);
        return (Integer) size.invoke(null);
    }

    /**
     * Kafka's RemoteLogManager, allocated without its constructor, with Kafka's reader pool of one thread and what
     * asyncRead and the reader use: topic stats (with the remote-storage meters), the fetch quota (3.9+), the read timer
     * (3.9+).
     */
    private static final class ReaderPool implements AutoCloseable {
        final ThreadPoolExecutor pool;
        private final Object rlm;
        private final Method asyncRead;
        private final Class<?> poolType;
        private final Class<?> metricsType;
        private final Object metrics;

        ReaderPool(WovenKafka kafka, String version, String threadPrefix) throws Exception {
            Class<?> rlmType = kafka.kafkaClass(readerPackage(version) + "RemoteLogManager");
            rlm = allocate(rlmType);
            poolType = kafka.kafkaClass("org.apache.kafka.storage.internals.log.RemoteStorageThreadPool");
            pool = (ThreadPoolExecutor) poolType.getConstructor(String.class, int.class, int.class)
                .newInstance(threadPrefix, 1, 10);
            metricsType = kafka.kafkaClass("org.apache.kafka.common.metrics.Metrics");
            metrics = metricsType.getConstructor().newInstance();
            set(rlm, "remoteStorageReaderThreadPool", pool);
            // kafka.server's (Scala) up to 4.0, kafka-storage's from 4.1: with the remote-storage meters (3.6's want a
            // KafkaConfig with tiered storage on for them, which is why this test starts at 3.9)
            Class<?> stats = rlmType.getDeclaredField("brokerTopicStats").getType();
            set(rlm, "brokerTopicStats", stats.getConstructor(boolean.class).newInstance(true));
            Field quota = declared(rlmType, "rlmFetchQuotaManager");
            if (quota != null) {
                Constructor<?> c = quota.getType().getConstructors()[0];
                Class<?>[] types = c.getParameterTypes(); // (config, Metrics, QuotaType, String, Time)
                Class<?> time = kafka.kafkaClass("org.apache.kafka.common.utils.Time");
                set(rlm, "rlmFetchQuotaManager", c.newInstance(
                    types[0].getConstructor(long.class, int.class, int.class).newInstance(Long.MAX_VALUE, 11, 1),
                    metrics, rlmFetch(kafka, types[2]), "test", time.getField("SYSTEM").get(null)));
            }
            if (declared(rlmType, "remoteReadTimer") != null) {
                // yammer's classes as Kafka's loader has them
                Object yammer = kafka.kafkaClass("com.yammer.metrics.core.MetricsRegistry").getConstructor().newInstance();
                set(rlm, "remoteReadTimer", yammer.getClass().getMethod("newTimer", Class.class, String.class)
                    .invoke(yammer, RemoteReadQueueTest.class, "remote-read"));
            }
            asyncRead = rlmType.getMethod("asyncRead",
                kafka.kafkaClass("org.apache.kafka.storage.internals.log.RemoteStorageFetchInfo"), Consumer.class);
        }

        Future<?> asyncRead(Object fetchInfo, Consumer<Object> callback) throws Exception {
            return (Future<?>) asyncRead.invoke(rlm, fetchInfo, callback);
        }

        @Override
        public void close() throws Exception {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            poolType.getMethod("removeMetrics").invoke(pool);
            metricsType.getMethod("close").invoke(metrics);
        }

        /** QuotaType.RLM_FETCH: a Java enum from 4.0, Scala's case object QuotaType.RLMFetch in 3.9. */
        private static Object rlmFetch(WovenKafka kafka, Class<?> quotaType) throws Exception {
            try {
                return quotaType.getField("RLM_FETCH").get(null);
            } catch (NoSuchFieldException e) {
                return kafka.kafkaClass(quotaType.getName() + "$RLMFetch$").getField("MODULE$").get(null);
            }
        }
    }

    /**
     * RemoteStorageFetchInfo(maxBytes, minOneMessage, TopicPartition (up to 4.1) or TopicIdPartition (4.2+), data,
     * isolation[, hardMaxBytesLimit up to 3.9]).
     */
    private static Object fetchInfo(WovenKafka kafka, int partition) throws Exception {
        Class<?> info = kafka.kafkaClass("org.apache.kafka.storage.internals.log.RemoteStorageFetchInfo");
        Class<?> uuid = kafka.kafkaClass("org.apache.kafka.common.Uuid");
        Object topicId = uuid.getField("ONE_UUID").get(null);
        Class<?> tpType = kafka.kafkaClass("org.apache.kafka.common.TopicPartition");
        Object tp = tpType.getConstructor(String.class, int.class).newInstance("orders", partition);
        Class<?> dataType = kafka.kafkaClass("org.apache.kafka.common.requests.FetchRequest$PartitionData");
        Object data = dataType.getConstructor(uuid, long.class, long.class, int.class, Optional.class)
            .newInstance(topicId, 0L, 0L, 1 << 20, Optional.empty());
        Constructor<?> c = info.getConstructors()[0];
        Class<?>[] types = c.getParameterTypes();
        Object highWatermark = types[4].getField("HIGH_WATERMARK").get(null); // FetchIsolation, wherever it lives
        Object p = types[2] == tpType ? tp : types[2].getConstructor(uuid, tpType).newInstance(topicId, tp);
        return types.length == 6 ? c.newInstance(1 << 20, true, p, data, highWatermark, false)
            : c.newInstance(1 << 20, true, p, data, highWatermark);
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

    private static Field declared(Class<?> type, String name) {
        try {
            return type.getDeclaredField(name);
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    private static void set(Object target, String name, Object value) throws Exception {
        Field f = target.getClass().getDeclaredField(name);
        f.setAccessible(true);
        f.set(target, value);
    }
}
