package io.stallscope.agent.runtime;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.WovenKafka;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tiered-storage plugin's calls as a broker makes them: Kafka's own ClassLoaderAwareRemoteStorageManager, woven
 * with the agent's advice as its transformer weaves it (the points' own catalog entries and advice), wrapping Kafka's
 * own LocalTieredStorage (kafka-storage's test jar). A segment is copied to the remote tier, fetched (both overloads)
 * and its indexes fetched on the threads Kafka runs them on, then deleted: each call is timed as its op, on its
 * thread's role, with the segment's topic-partition; each returns what the same calls return without the agent; a
 * call that throws throws the same and is counted as failed.
 */
class RemoteStorageOpsTest extends UsesHooks {
    private static final String WRAPPER = "org.apache.kafka.server.log.remote.storage.ClassLoaderAwareRemoteStorageManager";
    private static final String PKG = "org.apache.kafka.server.log.remote.storage.";
    /** Kafka's thread names: the remote-log-reader pool, a request handler (ListOffsets up to 3.9), the copy pool. */
    private static final String READER = "remote-log-reader-0";
    private static final String HANDLER = "data-plane-kafka-request-handler-2";
    private static final String COPIER = "kafka-rlm-copy-thread-pool-0";
    private static final String EXPIRER = "kafka-rlm-expiration-thread-pool-0";
    private static final byte[] RECORDS = "the segment's records, as bytes on the remote tier".getBytes(StandardCharsets.UTF_8);

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    @ParameterizedTest
    @ValueSource(strings = {"3.6.2", "3.9.2", "4.1.2", "4.4.0"})
    void kafkasWrapperAroundLocalTieredStorageIsTimedPerOpRoleAndPartition(String version, @TempDir Path tmp)
        throws Exception {
        Path local = Files.createDirectories(tmp.resolve("log/orders-3"));
        Map<String, byte[]> woven = Map.of(WRAPPER, WovenKafka.weave(version, WRAPPER, wrapperAdvice()));
        List<Object> stock = run(version, Map.of(), kafka -> exercise(kafka, local, tmp.resolve("stock-remote")));
        List<Object> withAgent = run(version, woven, kafka -> exercise(kafka, local, tmp.resolve("remote")));

        assertThat(withAgent).as("what the calls return, with the agent and without").isEqualTo(stock);
        assertThat(withAgent.get(0)).isEqualTo(new String(RECORDS, StandardCharsets.UTF_8));
        // LocalTieredStorage reads from the start position to the segment's end, whatever the end position
        assertThat(withAgent.get(1)).isEqualTo(new String(RECORDS, 4, RECORDS.length - 4, StandardCharsets.UTF_8));
        assertThat(withAgent.get(2)).isEqualTo("offset index");
        assertThat(withAgent.get(3)).isEqualTo("time index");
        assertThat(withAgent.get(4)).isEqualTo("threw org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException");

        String scrape = registry.scrape();
        assertThat(scrape)
            .contains("stallscope_op_seconds_count{op=\"remote_copy\",role=\"other\"} 1")
            .contains("stallscope_op_seconds_count{op=\"remote_fetch\",role=\"other\"} 2")
            .contains("stallscope_op_seconds_count{op=\"remote_fetch_index\",role=\"other\"} 1")
            .contains("stallscope_op_seconds_count{op=\"remote_fetch_index\",role=\"request_handler\"} 1")
            .contains("stallscope_op_seconds_count{op=\"remote_fetch\",role=\"request_handler\"} 1")
            .contains("stallscope_op_errors_total{op=\"remote_fetch\",role=\"request_handler\"} 1.0")
            .contains("stallscope_op_seconds_count{op=\"remote_delete\",role=\"other\"} 1")
            .contains("stallscope_op_errors_total{op=\"remote_fetch\",role=\"other\"} 0.0");

        String segment = "path=remote:orders-3/00000000000000000100-";
        assertThat(linesOf(COPIER)).singleElement().asString()
            .startsWith("slow op=remote_copy ").contains(" role=other topic=orders partition=3 ").contains(segment)
            .endsWith(".log");
        assertThat(linesOf(READER)).hasSize(3).allSatisfy(l -> assertThat(l).contains(" role=other topic=orders partition=3 "));
        assertThat(linesOf(READER)).filteredOn(l -> l.startsWith("slow op=remote_fetch ")).hasSize(2)
            .allSatisfy(l -> assertThat(l).contains(segment).endsWith(".log"));
        assertThat(linesOf(READER)).filteredOn(l -> l.startsWith("slow op=remote_fetch_index ")).singleElement()
            .asString().contains(segment).endsWith(".index");
        // a ListOffsets by time on a handler (3.6-3.9): the time index, then a segment that is not there
        assertThat(linesOf(HANDLER)).filteredOn(l -> l.startsWith("slow op=remote_fetch_index ")).singleElement()
            .asString().contains(" role=request_handler topic=orders partition=3 ").endsWith(".timeindex");
        assertThat(linesOf(HANDLER)).filteredOn(l -> l.startsWith("slow op=remote_fetch ")).singleElement().asString()
            .contains(" role=request_handler topic=orders partition=7 ")
            .contains(" failed=org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException");
        assertThat(linesOf(EXPIRER)).singleElement().asString().startsWith("slow op=remote_delete ")
            .contains(" role=other topic=orders partition=3 ");
    }

    /**
     * Kafka's RemoteIndexCache (3.6+) over the same wrapper and plugin: a lookup in a segment not cached loads its
     * indexes (a miss: remote_index_load, with the plugin's fetchIndex calls inside), later lookups find them (hits:
     * counted, nothing timed); a lookup of a segment the remote tier does not have fails in its load (a miss all the
     * same, on a handler), and one in the closed cache throws before the cache is asked (neither). Every lookup
     * returns or throws what it does without the agent.
     */
    @ParameterizedTest
    @ValueSource(strings = {"3.6.2", "3.9.2", "4.1.2", "4.4.0"})
    void aRemoteIndexCacheMissIsTimedAsItsLoadAndEveryLookupCountedAsHitOrMiss(String version, @TempDir Path tmp)
        throws Exception {
        Path local = Files.createDirectories(tmp.resolve("log/orders-3"));
        String cache = "org.apache.kafka.storage.internals.log.RemoteIndexCache";
        Map<String, byte[]> woven = Map.of(WRAPPER, WovenKafka.weave(version, WRAPPER, wrapperAdvice()),
            cache, WovenKafka.weave(version, cache,
                PointAdvice.of(KafkaTargets.REMOTE_INDEX_LOAD, KafkaTargets.REMOTE_INDEX_LOOKUP)));
        List<Object> stock = run(version, Map.of(), kafka -> lookUp(kafka, local, tmp.resolve("stock"), () -> { }));
        List<String> counted = new ArrayList<>();
        List<Object> withAgent = run(version, woven,
            kafka -> lookUp(kafka, local, tmp.resolve("agent"), () -> counted.add(indexCacheCounters())));

        assertThat(withAgent).isEqualTo(stock);
        assertThat(withAgent.get(3)).asString().startsWith("threw ");
        assertThat(withAgent.get(4)).isEqualTo("threw java.lang.IllegalStateException");
        assertThat(counted).as("the cache's counters after each lookup").containsExactly(
            "hit=0.0 miss=1.0", // the first lookup loads the segment's indexes
            "hit=1.0 miss=1.0", // then the offset's lookup finds them
            "hit=2.0 miss=1.0", // and a timestamp's
            "hit=2.0 miss=2.0", // a segment not in the remote tier: its load fails, a miss
            "hit=2.0 miss=2.0"); // the closed cache: thrown before a hit or a miss
        String scrape = registry.scrape();
        assertThat(scrape).contains("stallscope_op_seconds_count{op=\"remote_index_load\",role=\"other\"} 1")
            .contains("stallscope_op_seconds_count{op=\"remote_index_load\",role=\"request_handler\"} 1")
            .contains("stallscope_op_errors_total{op=\"remote_index_load\",role=\"request_handler\"} 1.0")
            .contains("stallscope_advice_errors_total{op=\"remote_index_load\"} 0.0")
            .doesNotContain("op=\"remote_index_lookup\"");
        assertThat(linesOf(READER)).filteredOn(l -> l.startsWith("slow op=remote_index_load ")).singleElement()
            .asString().contains(" role=other topic=orders partition=3 path=remote:orders-3/00000000000000000100-");
        // inside the load, on the same thread: the plugin's fetches of the offset, time and transaction indexes (none
        // copied: LocalTieredStorage says it is not there, the cache makes an empty one), in the load's line
        assertThat(scrape).contains("stallscope_op_seconds_count{op=\"remote_fetch_index\",role=\"other\"} 3")
            .contains("stallscope_op_errors_total{op=\"remote_fetch_index\",role=\"other\"} 1.0");
        assertThat(linesOf(READER)).singleElement().asString()
            .containsPattern(" inner=remote_fetch_index:[0-9.]+ms,remote_fetch_index:[0-9.]+ms,remote_fetch_index:[0-9.]+ms$");
    }

    /** stallscope_remote_index_cache_total's two series, as "hit=H miss=M". */
    private String indexCacheCounters() {
        Map<String, String> values = new HashMap<>();
        registry.scrape().lines().filter(l -> l.startsWith("stallscope_remote_index_cache_total{result=\""))
            .forEach(l -> values.put(l.substring(l.indexOf('"') + 1, l.lastIndexOf('"')), l.substring(l.lastIndexOf(' ') + 1)));
        return "hit=" + values.get("hit") + " miss=" + values.get("miss");
    }

    /** What the calls do on Kafka's classes, as one run sees them. */
    private interface KafkaRun {
        List<Object> on(WovenKafka kafka) throws Exception;
    }

    /**
     * {@code calls} on Kafka's classes and the storage test jar of {@code version}, with {@code woven} in them: with none,
     * as Kafka ships them; with some, under the agent's recorder (its lines printed as an operator reads them).
     */
    private List<Object> run(String version, Map<String, byte[]> woven, KafkaRun calls) throws Exception {
        OpSink recorder = null;
        if (!woven.isEmpty()) {
            recorder = RecorderSink.withLines(registry, "slow.threshold=0ms,slow.log.per.minute=1000", lines);
            Hooks.install(recorder);
        }
        List<Object> results;
        try (WovenKafka kafka = WovenKafka.of(version, true, woven, WovenKafka.storageTestJar(version))) {
            results = calls.on(kafka);
        }
        if (recorder != null) {
            RecorderSink.drain(recorder);
            lines.forEach(l -> System.out.println(version + ": " + l));
        }
        return results;
    }

    /** The four plugin calls' advice on Kafka's wrapper. */
    private static net.bytebuddy.asm.AsmVisitorWrapper[] wrapperAdvice() {
        return PointAdvice.of(KafkaTargets.REMOTE_FETCH_SEGMENT, KafkaTargets.REMOTE_FETCH_INDEX, KafkaTargets.REMOTE_COPY,
            KafkaTargets.REMOTE_DELETE);
    }

    /**
     * Copies a segment with empty (valid) indexes, then, in a fresh RemoteIndexCache, looks an offset up twice and a
     * timestamp once in it, an offset in a segment never copied (on a handler), and an offset once the cache is
     * closed; {@code afterEach} runs after each lookup.
     */
    private static List<Object> lookUp(WovenKafka kafka, Path local, Path dir, Runnable afterEach) throws Exception {
        Files.write(local.resolve("00000000000000000100.log"), RECORDS);
        Files.write(local.resolve("00000000000000000100.index"), new byte[0]);
        Files.write(local.resolve("00000000000000000100.timeindex"), new byte[0]);
        Files.write(local.resolve("00000000000000000100.snapshot"), bytes("producer snapshot"));
        Path remoteDir = Files.createDirectories(dir.resolve("remote"));
        Path cacheDir = Files.createDirectories(dir.resolve("cache"));
        Class<?> rsmType = kafka.kafkaClass(PKG + "RemoteStorageManager");
        Object plugin = kafka.kafkaClass(PKG + "LocalTieredStorage").getConstructor().newInstance();
        Object rsm = kafka.kafkaClass(WRAPPER).getConstructor(rsmType, ClassLoader.class)
            .newInstance(plugin, plugin.getClass().getClassLoader());
        Map<String, Object> config = new HashMap<>();
        config.put("dir", remoteDir.toString());
        config.put("broker.id", 1);
        config.put("node.id", 1);
        call(rsm, "configure", new Class<?>[] {Map.class}, config);
        Object topicId = kafka.kafkaClass("org.apache.kafka.common.Uuid").getMethod("randomUuid").invoke(null);
        Object segment = metadata(kafka, topicId, 3, 100L);
        Object missing = metadata(kafka, topicId, 7, 0L);
        Object data = kafka.kafkaClass(PKG + "LogSegmentData").getConstructor(Path.class, Path.class, Path.class,
                Optional.class, Path.class, ByteBuffer.class)
            .newInstance(local.resolve("00000000000000000100.log"), local.resolve("00000000000000000100.index"),
                local.resolve("00000000000000000100.timeindex"), Optional.empty(),
                local.resolve("00000000000000000100.snapshot"), ByteBuffer.wrap(bytes("0\n1\n0 100\n")));
        Class<?> meta = kafka.kafkaClass(PKG + "RemoteLogSegmentMetadata");
        call(rsm, "copyLogSegmentData", new Class<?>[] {meta, data.getClass()}, segment, data);

        Class<?> cacheType = kafka.kafkaClass("org.apache.kafka.storage.internals.log.RemoteIndexCache");
        Object cache = null;
        for (Constructor<?> c : cacheType.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 2 && p[0] == rsmType) { // 3.6: (rsm, logDir)
                cache = c.newInstance(rsm, cacheDir.toString());
            } else if (p.length == 3 && p[0] == long.class && p[1] == rsmType) { // 3.7+: (maxBytes, rsm, logDir)
                cache = c.newInstance(1L << 20, rsm, cacheDir.toString());
            }
        }
        assertThat(cache).as("RemoteIndexCache's constructor").isNotNull();
        Object theCache = cache;
        Method offset = cacheType.getMethod("lookupOffset", meta, long.class);
        Method timestamp = cacheType.getMethod("lookupTimestamp", meta, long.class, long.class);
        List<Object> results = new ArrayList<>();
        results.add(onThread(READER, () -> offset.invoke(theCache, segment, 105L)));
        afterEach.run();
        results.add(onThread(READER, () -> offset.invoke(theCache, segment, 105L)));
        afterEach.run();
        results.add(onThread(READER, () -> timestamp.invoke(theCache, segment, 1_000L, 100L)));
        afterEach.run();
        results.add(onThread(HANDLER, () -> thrownBy(() -> offset.invoke(theCache, missing, 5L))));
        afterEach.run();
        cacheType.getMethod("close").invoke(cache);
        results.add(onThread(READER, () -> thrownBy(() -> offset.invoke(theCache, segment, 105L))));
        afterEach.run();
        call(rsm, "close", new Class<?>[0]);
        return results;
    }

    /** What a reflective call returned, or "threw " and the class of what it threw. */
    private static Object thrownBy(Callable<Object> call) throws Exception {
        try {
            return call.call();
        } catch (InvocationTargetException e) {
            return "threw " + e.getCause().getClass().getName();
        }
    }

    /**
     * Copy a segment with its indexes, fetch it whole and a range of it, fetch its offset index on a reader and its
     * time index on a handler, fetch a segment that is not there, delete the segment: what each returned, in order.
     */
    private static List<Object> exercise(WovenKafka kafka, Path local, Path remoteDir) throws Exception {
        Files.write(local.resolve("00000000000000000100.log"), RECORDS);
        Files.write(local.resolve("00000000000000000100.index"), bytes("offset index"));
        Files.write(local.resolve("00000000000000000100.timeindex"), bytes("time index"));
        Files.write(local.resolve("00000000000000000100.snapshot"), bytes("producer snapshot"));
        Files.createDirectories(remoteDir);

        Class<?> rsmType = kafka.kafkaClass(PKG + "RemoteStorageManager");
        Object plugin = kafka.kafkaClass(PKG + "LocalTieredStorage").getConstructor().newInstance();
        Object rsm = kafka.kafkaClass(WRAPPER).getConstructor(rsmType, ClassLoader.class)
            .newInstance(plugin, plugin.getClass().getClassLoader());
        Map<String, Object> config = new HashMap<>();
        config.put("dir", remoteDir.toString());
        config.put("broker.id", 1);
        config.put("node.id", 1);
        call(rsm, "configure", new Class<?>[] {Map.class}, config);

        Class<?> uuid = kafka.kafkaClass("org.apache.kafka.common.Uuid");
        Object topicId = uuid.getMethod("randomUuid").invoke(null);
        Object segment = metadata(kafka, topicId, 3, 100L);
        Object missing = metadata(kafka, topicId, 7, 0L);
        Object data = kafka.kafkaClass(PKG + "LogSegmentData").getConstructor(Path.class, Path.class, Path.class,
                Optional.class, Path.class, ByteBuffer.class)
            .newInstance(local.resolve("00000000000000000100.log"), local.resolve("00000000000000000100.index"),
                local.resolve("00000000000000000100.timeindex"), Optional.empty(),
                local.resolve("00000000000000000100.snapshot"), ByteBuffer.wrap(bytes("0\n1\n0 100\n")));
        Class<?> meta = kafka.kafkaClass(PKG + "RemoteLogSegmentMetadata");
        Class<?> indexType = kafka.kafkaClass(PKG + "RemoteStorageManager$IndexType");
        Function<String, Object> type = name -> enumConstant(indexType, name);

        List<Object> results = new ArrayList<>();
        onThread(COPIER, () -> call(rsm, "copyLogSegmentData", new Class<?>[] {meta, data.getClass()}, segment, data));
        results.add(onThread(READER, () -> read(call(rsm, "fetchLogSegment", new Class<?>[] {meta, int.class},
            segment, 0))));
        results.add(onThread(READER, () -> read(call(rsm, "fetchLogSegment",
            new Class<?>[] {meta, int.class, int.class}, segment, 4, 11))));
        results.add(onThread(READER, () -> read(call(rsm, "fetchIndex", new Class<?>[] {meta, indexType}, segment,
            type.apply("OFFSET")))));
        results.add(onThread(HANDLER, () -> read(call(rsm, "fetchIndex", new Class<?>[] {meta, indexType}, segment,
            type.apply("TIMESTAMP")))));
        results.add(onThread(HANDLER, () -> {
            try {
                return call(rsm, "fetchLogSegment", new Class<?>[] {meta, int.class}, missing, 0);
            } catch (InvocationTargetException e) {
                return "threw " + e.getCause().getClass().getName();
            }
        }));
        onThread(EXPIRER, () -> call(rsm, "deleteLogSegmentData", new Class<?>[] {meta}, segment));
        results.add(Files.walk(remoteDir).filter(Files::isRegularFile).count());
        call(rsm, "close", new Class<?>[0]);
        return results;
    }

    /** RemoteLogSegmentMetadata(segmentId, start, end, maxTimestamp, brokerId, eventTimestamp, size, epochs), every version. */
    private static Object metadata(WovenKafka kafka, Object topicId, int partition, long start) throws Exception {
        Class<?> uuid = kafka.kafkaClass("org.apache.kafka.common.Uuid");
        Class<?> tpType = kafka.kafkaClass("org.apache.kafka.common.TopicPartition");
        Class<?> tipType = kafka.kafkaClass("org.apache.kafka.common.TopicIdPartition");
        Object tip = tipType.getConstructor(uuid, tpType)
            .newInstance(topicId, tpType.getConstructor(String.class, int.class).newInstance("orders", partition));
        Class<?> idType = kafka.kafkaClass(PKG + "RemoteLogSegmentId");
        Object id = idType.getConstructor(tipType, uuid).newInstance(tip, uuid.getMethod("randomUuid").invoke(null));
        Constructor<?> c = kafka.kafkaClass(PKG + "RemoteLogSegmentMetadata").getConstructor(idType, long.class,
            long.class, long.class, int.class, long.class, int.class, Map.class);
        return c.newInstance(id, start, start + 9, 1_000L, 1, 1_000L, RECORDS.length, Map.of(0, start));
    }

    private static Object call(Object target, String name, Class<?>[] types, Object... args) throws Exception {
        Method m = target.getClass().getMethod(name, types);
        return m.invoke(target, args);
    }

    private static String read(Object stream) throws Exception {
        try (InputStream in = (InputStream) stream) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static Object enumConstant(Class<?> type, String name) {
        for (Object c : type.getEnumConstants()) {
            if (c.toString().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException(name);
    }

    /** Runs the call on a thread of this name, as Kafka's pool or handler would. */
    private static Object onThread(String name, Callable<Object> call) throws Exception {
        FutureTask<Object> task = new FutureTask<>(call);
        Thread t = new Thread(task, name);
        t.start();
        t.join(30_000);
        try {
            return task.get();
        } catch (ExecutionException e) {
            throw new AssertionError("on " + name, e.getCause());
        }
    }

    private List<String> linesOf(String thread) {
        return lines.stream().filter(l -> l.contains(" thread=\"" + thread + "\"")).collect(Collectors.toList());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
