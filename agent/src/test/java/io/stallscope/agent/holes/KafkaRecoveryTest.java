package io.stallscope.agent.holes;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.holes.advice.SegmentRecoveredAdvice;
import io.stallscope.agent.kafka.KafkaJars;
import io.stallscope.agent.kafka.KafkaReleases;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.WovenKafka;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kafka's own recovery of a cut log, as a broker runs it after a power cut: the 4.x LogLoader (kafka-storage, Java)
 * with the agent's advice woven into its recoverSegment, loading a log whose first segment ends on a batch boundary
 * below the next segment's base, after an unclean shutdown. Kafka keeps the log end past the hole (the issue), and the
 * hook, with the real loader as its instance, says so once.
 */
class KafkaRecoveryTest {
    static final String STORAGE = "org.apache.kafka.storage.internals.log.";
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();

    @AfterEach
    void uninstall() {
        HoleHooks.install(null);
    }

    @Test
    void kafkasRecoveryKeepsTheLogEndPastTheHoleAndTheHookSaysSo(@TempDir Path tmp) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HoleHooks.install(new HoleDetector(new HoleReport(registry, warnings::add, errors::add, null)));
        List<String> ran = new ArrayList<>();
        for (String version : KafkaJars.catalog()) {
            if (KafkaReleases.compare(version, "4.0") < 0) {
                continue; // the Scala LogLoader needs scala-library, which the catalog's jars leave out
            }
            warnings.clear();
            Map<String, byte[]> woven = Collections.singletonMap(STORAGE + "LogLoader", weaveLogLoader(version));
            try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage(version, woven)) {
                Path log = Files.createDirectories(tmp.resolve(version).resolve("orders-3"));
                long boundary = kafka.append(log.resolve(KafkaRecordsWriter.name(0)), 0, 3);
                kafka.append(log.resolve(KafkaRecordsWriter.name(0)), 3, 7);
                kafka.append(log.resolve(KafkaRecordsWriter.name(10)), 10, 5);
                HolesOnEveryVersionTest.truncate(log.resolve(KafkaRecordsWriter.name(0)), boundary);

                long logEnd = load(kafka, log, false);

                assertThat(logEnd).as(version + ": Kafka's log end after recovery").isEqualTo(15);
                assertThat(warnings).as(version).hasSize(1);
                assertThat(warnings.get(0)).as(version).startsWith("hole in orders-3: offsets 3-9 (7 offsets) missing"
                    + " between 00000000000000000000.log (" + boundary + " bytes, offsets 0-2) and"
                    + " 00000000000000000010.log (");
                ran.add(version);
            }
        }
        assertThat(ran).as("every catalog version from 4.0").hasSizeGreaterThanOrEqualTo(6);
        assertThat(errors).isEmpty();
        // with no index files Kafka recovers each segment at load and again in recoverLog: one line, counted once
        assertThat(registry.get(HoleReport.CHECKS).tag("result", "hole").counter().count()).isEqualTo(2.0 * ran.size());
        assertThat(registry.get(HoleReport.HOLES).tag("unit", "offsets").gauge().value()).isEqualTo(7.0 * ran.size());
        assertThat(registry.get(HoleReport.HOLES).tag("unit", "logs").gauge().value()).isEqualTo(ran.size());
    }

    /** A compacted topic's gap, as the loader's own LogConfig says it is compacted: no line. */
    @Test
    void theLoadersOwnConfigMakesACompactedGapNoHole(@TempDir Path tmp) throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HoleHooks.install(new HoleDetector(new HoleReport(registry, warnings::add, errors::add, null)));
        String version = "4.1.2";
        Map<String, byte[]> woven = Collections.singletonMap(STORAGE + "LogLoader", weaveLogLoader(version));
        try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage(version, woven)) {
            Path log = Files.createDirectories(tmp.resolve("orders-3"));
            long boundary = kafka.append(log.resolve(KafkaRecordsWriter.name(0)), 0, 3);
            kafka.append(log.resolve(KafkaRecordsWriter.name(0)), 3, 7);
            kafka.append(log.resolve(KafkaRecordsWriter.name(10)), 10, 5);
            HolesOnEveryVersionTest.truncate(log.resolve(KafkaRecordsWriter.name(0)), boundary);
            assertThat(load(kafka, log, true)).isEqualTo(15);
        }
        assertThat(warnings).isEmpty();
        assertThat(errors).isEmpty();
        assertThat(registry.get(HoleReport.CHECKS).tag("result", "unverifiable").counter().count())
            .as("the gap was seen, and judged compacted by the loader's config").isGreaterThanOrEqualTo(1.0);
    }

    /** The version's LogLoader with the detection's advice on recoverSegment, as the agent's transformer weaves it. */
    private static byte[] weaveLogLoader(String version) throws Exception {
        return weaveLogLoader(version, Advice.to(SegmentRecoveredAdvice.class).on(KafkaTargets.SEGMENT_RECOVERED.advisable()));
    }

    /** The version's (4.x, kafka-storage) LogLoader with these visitors, as the agent's transformer weaves them. */
    static byte[] weaveLogLoader(String version, AsmVisitorWrapper... visitors) throws Exception {
        return WovenKafka.weave(version, STORAGE + "LogLoader", visitors);
    }

    /** Kafka's LogLoader.load() after an unclean shutdown, recovery point 0; returns the log end it settles on. */
    static long load(KafkaRecordsWriter kafka, Path log, boolean compacted) throws Exception {
        Class<?> tpType = kafka.kafkaClass("org.apache.kafka.common.TopicPartition");
        Object tp = tpType.getConstructor(String.class, int.class).newInstance("orders", 3);
        Map<String, String> props = new HashMap<>();
        if (compacted) {
            props.put("cleanup.policy", "compact");
        }
        Class<?> configType = kafka.kafkaClass(STORAGE + "LogConfig");
        Object config = configType.getConstructor(Map.class).newInstance(props);
        Class<?> schedulerType = kafka.kafkaClass("org.apache.kafka.server.util.KafkaScheduler");
        Object scheduler = schedulerType.getConstructor(int.class).newInstance(1);
        schedulerType.getMethod("startup").invoke(scheduler);
        Class<?> timeType = kafka.kafkaClass("org.apache.kafka.common.utils.Time");
        Object time = timeType.getField("SYSTEM").get(null);
        Class<?> failureType = kafka.kafkaClass(STORAGE + "LogDirFailureChannel");
        Object failures = failureType.getConstructor(int.class).newInstance(1);
        Class<?> segmentsType = kafka.kafkaClass(STORAGE + "LogSegments");
        Object segments = segmentsType.getConstructor(tpType).newInstance(tp);
        Class<?> checkpointType = kafka.kafkaClass("org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile");
        Object checkpoint = checkpointType.getConstructor(File.class, failureType).newInstance(
            checkpointType.getMethod("newFile", File.class).invoke(null, log.toFile()), failures);
        Class<?> cacheType = kafka.kafkaClass("org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache");
        Class<?> schedulerInterface = kafka.kafkaClass("org.apache.kafka.server.util.Scheduler");
        Object cache = cacheType.getConstructor(tpType, checkpointType, schedulerInterface).newInstance(tp, checkpoint, scheduler);
        Class<?> psmConfigType = kafka.kafkaClass(STORAGE + "ProducerStateManagerConfig");
        Class<?> psmType = kafka.kafkaClass(STORAGE + "ProducerStateManager");
        Object psm = psmType.getConstructor(tpType, File.class, int.class, psmConfigType, timeType).newInstance(tp,
            log.toFile(), 900_000, psmConfigType.getConstructor(int.class, boolean.class).newInstance(86_400_000, false), time);
        Constructor<?> loaderCtor = null;
        for (Constructor<?> c : kafka.kafkaClass(STORAGE + "LogLoader").getConstructors()) {
            if (c.getParameterCount() == 14) {
                loaderCtor = c;
            }
        }
        Object loader = loaderCtor.newInstance(log.toFile(), tp, config, scheduler, time, failures, false, segments, 0L, 0L,
            cache, psm, new ConcurrentHashMap<String, Integer>(), false);
        try {
            Object offsets = loader.getClass().getMethod("load").invoke(loader);
            Object next = field(offsets, "nextOffsetMetadata");
            return (Long) field(next, "messageOffset");
        } finally {
            segmentsType.getMethod("close").invoke(segments);
            schedulerType.getMethod("shutdown").invoke(scheduler);
        }
    }

    /** A public final field (4.0, 4.1) or a record component (LoadedLogOffsets from 4.2). */
    private static Object field(Object target, String name) throws Exception {
        try {
            return target.getClass().getField(name).get(target);
        } catch (NoSuchFieldException record) {
            return target.getClass().getMethod(name).invoke(target);
        }
    }
}
