package io.stallscope.agent.holes;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.kafka.KafkaJars;
import io.stallscope.agent.kafka.KafkaReleases;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live detection at the end of a segment's recovery. On 3.7 and later with Kafka's own LogSegment (kafka-storage)
 * opened over files its own FileRecords wrote; on every catalog version, that the classes the hook resolves to carry
 * what it reads (the segment's methods, the log's config.compact and log start offset).
 */
class HoleDetectionTest {
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void uninstall() {
        HoleHooks.install(null);
    }

    @Test
    void kafkasRecoveredSegmentBelowAGapIsOneWarningPerLog(@TempDir Path tmp) throws Exception {
        HoleReport report = new HoleReport(registry, warnings::add, errors::add, null);
        int versions = 0;
        for (String version : KafkaJars.catalog()) {
            if (KafkaReleases.compare(version, "3.7") < 0) {
                continue; // LogSegment is Scala there: its shape is checked below, against the class files
            }
            versions++;
            warnings.clear();
            HoleHooks.install(new HoleDetector(report));
            Path logDir = Files.createDirectories(tmp.resolve(version));
            try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage(version)) {
                Path cut = writeCutLog(kafka, logDir.resolve("orders-3"));
                writeLog(kafka, logDir.resolve("orders-4"));
                Path intact = logDir.resolve("orders-4").resolve(KafkaRecordsWriter.name(0));
                Path offsets = writeCutLog(kafka, logDir.resolve("__consumer_offsets-0"));

                Object segment = open(kafka, cut.getParent(), 0);
                HoleHooks.recovered(null, segment, null, 0);
                HoleHooks.recovered(null, segment, null, 0);
                HoleHooks.recovered(null, open(kafka, intact.getParent(), 0), null, 0);
                HoleHooks.recovered(null, open(kafka, offsets.getParent(), 0), null, 0);
                // Kafka truncated this one: it deletes the later segments next, so there is nothing to judge
                HoleHooks.recovered(null, segment, null, 120);

                assertThat(warnings).as(version).hasSize(1);
                assertThat(warnings.get(0)).as(version).startsWith("hole in orders-3: offsets 3-9 (7 offsets) missing"
                    + " between 00000000000000000000.log (").contains("00000000000000000010.log (")
                    .contains("Kafka serves past it (consumers skip these offsets silently) and no follower refetches it");
            }
        }
        assertThat(versions).as("catalog versions from 3.7").isGreaterThanOrEqualTo(8);
        assertThat(gauge("logs")).isEqualTo(versions);
        assertThat(gauge("offsets")).as("7 per version, counted once though recovered twice").isEqualTo(7.0 * versions);
        assertThat(checks("unverifiable")).isEqualTo(versions);
        assertThat(checks("no_gap")).isEqualTo(versions);
        assertThat(checks("truncated")).isEqualTo(versions);
        assertThat(errors).isEmpty();
    }

    @Test
    void theLogStartOffsetAndTheCleanerCheckpointAreHonouredWithoutTheLogsObject(@TempDir Path logDir) throws Exception {
        HoleHooks.install(new HoleDetector(new HoleReport(registry, warnings::add, errors::add, null)));
        try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage("4.1.2")) {
            Path deleted = writeCutLog(kafka, logDir.resolve("orders-3"));
            Path compacted = writeCutLog(kafka, logDir.resolve("orders-4"));
            Files.write(logDir.resolve(OffsetCheckpoint.LOG_START), Arrays.asList("0", "1", "orders 3 10"));
            Files.write(logDir.resolve(OffsetCheckpoint.CLEANER), Arrays.asList("0", "1", "orders 4 0"));
            HoleHooks.recovered(null, open(kafka, deleted.getParent(), 0), null, 0);
            HoleHooks.recovered(null, open(kafka, compacted.getParent(), 0), null, 0);
        }
        assertThat(warnings).isEmpty();
        assertThat(checks("no_gap")).isEqualTo(1);
        assertThat(checks("unverifiable")).isEqualTo(1);
    }

    /** Kafka's own LogConfig (4.1.2) with cleanup.policy=compact,delete: the flag the hook reads off the log's config. */
    @Test
    void theCompactFlagIsReadOffKafkasLogConfig() throws Exception {
        try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage("4.1.2")) {
            Class<?> type = kafka.kafkaClass("org.apache.kafka.storage.internals.log.LogConfig");
            Map<String, String> props = new HashMap<>();
            props.put("cleanup.policy", "compact,delete");
            assertThat(RecoveredLog.compactOf(type.getConstructor(Map.class).newInstance(props))).isTrue();
            assertThat(RecoveredLog.compactOf(type.getConstructor(Map.class).newInstance(new HashMap<>()))).isFalse();
        }
    }

    @Test
    void aFailureIsCountedAndSaidOnceAndNeverReachesKafka() {
        HoleHooks.install(new HoleDetector(new HoleReport(registry, warnings::add, errors::add, null)));
        HoleHooks.recovered(null, "not a segment", null, 0);
        HoleHooks.recovered(null, "not a segment", null, 0);
        assertThat(checks("error")).isEqualTo(2);
        assertThat(errors).hasSize(1);
        assertThat(errors.get(0)).startsWith("hole detection failed on a recovered segment");
    }

    /**
     * What the hook reads, on the classes it resolves to in every catalog version: the segment's baseOffset(),
     * readNextOffset() and log().file(); the log's config (with its compact flag) and log start offset, on the
     * instance or, in 3.0-3.2, on the LoadLogParams argument.
     */
    @Test
    void everyVersionsRecoveryCarriesWhatTheHookReads() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (String version : KafkaJars.catalog()) {
            try (KafkaJars jars = KafkaJars.of(version)) {
                TypePool pool = jars.pool();
                Resolution r = new TargetResolver(pool, version).resolve(KafkaTargets.SEGMENT_RECOVERED);
                if (!r.isResolved()) {
                    wrong.add(version + ": " + r);
                    continue;
                }
                for (String className : r.methodsByClass().keySet()) {
                    TypeDescription type = pool.describe(className).resolve();
                    for (MethodDescription m : type.getDeclaredMethods().filter(KafkaTargets.SEGMENT_RECOVERED.advisable())) {
                        TypeDescription segment = m.getParameters().get(0).getType().asErasure();
                        TypeDescription holder = field(type, "config") != null ? type
                            : m.getParameters().size() > 1 ? m.getParameters().get(1).getType().asErasure() : null;
                        String problem = problems(segment, holder);
                        if (problem != null) {
                            wrong.add(version + " " + className + ": " + problem);
                        }
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    private static String problems(TypeDescription segment, TypeDescription holder) {
        for (String method : new String[] {"baseOffset", "readNextOffset"}) {
            if (method(segment, method) == null || !method(segment, method).getReturnType().represents(long.class)) {
                return segment + " has no " + method + "()J";
            }
        }
        MethodDescription log = method(segment, "log");
        if (log == null || method(log.getReturnType().asErasure(), "file") == null
            || !method(log.getReturnType().asErasure(), "file").getReturnType().represents(File.class)) {
            return segment + ": no log().file()";
        }
        if (holder == null) {
            return "no holder of config";
        }
        FieldDescription config = field(holder, "config");
        if (config == null) {
            return holder + " has no config";
        }
        FieldDescription compact = field(config.getType().asErasure(), "compact");
        if (compact == null || !compact.getType().represents(boolean.class)) {
            return config.getType() + " has no boolean compact";
        }
        FieldDescription start = field(holder, "logStartOffsetCheckpoint");
        start = start != null ? start : field(holder, "logStartOffset");
        return start != null && start.getType().represents(long.class) ? null : holder + " has no long log start offset";
    }

    private static FieldDescription field(TypeDescription type, String name) {
        for (FieldDescription f : type.getDeclaredFields()) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        return null;
    }

    private static MethodDescription method(TypeDescription type, String name) {
        for (MethodDescription m : type.getDeclaredMethods()) {
            if (m.getName().equals(name) && m.getParameters().isEmpty()) {
                return m;
            }
        }
        return null;
    }

    /** offsets 0-2 and 3-9 in the first segment, cut after 0-2; 10-14 in the second. Returns the first's file. */
    private static Path writeCutLog(KafkaRecordsWriter kafka, Path log) throws Exception {
        Path first = log.resolve(KafkaRecordsWriter.name(0));
        HolesOnEveryVersionTest.truncate(first, writeLog(kafka, log));
        return first;
    }

    /** The same, not cut; returns where the first batch ends. */
    private static long writeLog(KafkaRecordsWriter kafka, Path log) throws Exception {
        return kafka.writeLog(log, 10);
    }

    /** Kafka's LogSegment.open(dir, baseOffset, LogConfig, Time, fileAlreadyExists, initFileSize, preallocate, suffix). */
    private static Object open(KafkaRecordsWriter kafka, Path dir, long base) throws Exception {
        Class<?> config = kafka.kafkaClass("org.apache.kafka.storage.internals.log.LogConfig");
        Class<?> time = kafka.kafkaClass("org.apache.kafka.common.utils.Time");
        Class<?> segment = kafka.kafkaClass("org.apache.kafka.storage.internals.log.LogSegment");
        return segment.getMethod("open", File.class, long.class, config, time, boolean.class, int.class, boolean.class,
                String.class)
            .invoke(null, dir.toFile(), base, config.getConstructor(Map.class).newInstance(new HashMap<>()),
                time.getField("SYSTEM").get(null), true, 0, false, "");
    }

    private double gauge(String unit) {
        return registry.get(HoleReport.HOLES).tag("unit", unit).gauge().value();
    }

    private double checks(String result) {
        return registry.get(HoleReport.CHECKS).tag("result", result).counter().count();
    }
}
