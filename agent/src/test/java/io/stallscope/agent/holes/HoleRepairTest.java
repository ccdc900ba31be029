package io.stallscope.agent.holes;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.holes.advice.RecoverLogAdvice;
import io.stallscope.agent.holes.advice.SegmentRepairAdvice;
import io.stallscope.agent.kafka.KafkaJars;
import io.stallscope.agent.kafka.KafkaReleases;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.Resolution;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.mitigate.MitigationMetrics;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.asm.Advice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * mitigate=hole-repair with Kafka's own 4.x LogLoader.load() after an unclean shutdown, the repair's advice woven into
 * recoverSegment and recoverLog as the agent weaves them: a log cut on a batch boundary below two later segments ends
 * at the hole, Kafka itself deleting the later segments, whose files were hard-linked into the quarantine first; a
 * compacted log, a log without a hole and a quarantine that cannot be linked are left as stock Kafka leaves them.
 */
class HoleRepairTest {
    private static final long NOW = 1_700_000_000_000L;
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MitigationMetrics metrics = new MitigationMetrics(registry, BrokerLog.get());

    @AfterEach
    void uninstall() {
        HoleHooks.install(null);
    }

    @Test
    void aCutLogEndsAtTheHoleAndTheLaterSegmentsAreInTheQuarantineFirst(@TempDir Path tmp) throws Exception {
        List<String> ran = new ArrayList<>();
        for (String version : KafkaJars.catalog()) {
            if (KafkaReleases.compare(version, "4.0") < 0) {
                continue; // the Scala LogLoader needs scala-library, which the catalog's jars leave out
            }
            warnings.clear();
            try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage(version, repairWoven(version))) {
                Path stock = writeCutLog(kafka, tmp.resolve("stock-" + version).resolve("orders-3"));
                HoleHooks.install(new HoleDetector(new HoleReport(registry, warnings::add, errors::add, null)));
                assertThat(KafkaRecoveryTest.load(kafka, stock, false)).as(version + ": without the option").isEqualTo(20);
                assertThat(quarantines(stock)).as(version + ": no quarantine without the option").isEmpty();
                assertThat(warnings).as(version + ": the detection alone").hasSize(1);
                warnings.clear();

                Path log = writeCutLog(kafka, tmp.resolve(version).resolve("orders-3"));
                Map<String, Object> inodes = new HashMap<>();
                Map<String, byte[]> bytes = new HashMap<>();
                for (long base : new long[] {10, 15}) {
                    Path file = log.resolve(KafkaRecordsWriter.name(base));
                    inodes.put(file.getFileName().toString(), Files.getAttribute(file, "unix:ino"));
                    bytes.put(file.getFileName().toString(), Files.readAllBytes(file));
                }
                install(null);

                assertThat(KafkaRecoveryTest.load(kafka, log, false)).as(version + ": the log end is the hole's first offset")
                    .isEqualTo(3);

                Path quarantine = log.resolve(HoleRepair.QUARANTINE_PREFIX + NOW);
                for (Map.Entry<String, Object> e : inodes.entrySet()) {
                    Path link = quarantine.resolve(e.getKey());
                    assertThat(Files.getAttribute(link, "unix:ino")).as(version + " " + e.getKey()).isEqualTo(e.getValue());
                    assertThat(Files.readAllBytes(link)).as(version + " " + e.getKey()).isEqualTo(bytes.get(e.getKey()));
                    assertThat(log.resolve(e.getKey())).as(version + ": Kafka took it out of the log").doesNotExist();
                }
                assertThat(names(quarantine)).as(version + ": the later segments' indexes and snapshots too")
                    .contains("00000000000000000010.index", "00000000000000000015.timeindex")
                    .noneMatch(n -> n.startsWith("00000000000000000000.") || n.startsWith("00000000000000000003."));
                assertThat(warnings).as(version).hasSize(2);
                assertThat(warnings.get(0)).startsWith("hole in orders-3: offsets 3-9");
                assertThat(warnings.get(1)).as(version).startsWith("hole-repair: orders-3 truncated to offset 3 through"
                    + " Kafka's corrupt-batch path").contains(quarantine.toString())
                    .contains("the records after the hole are dropped, which stock Kafka serves");
                // the next start loads the partition dir with the quarantine in it: Kafka's loader skips the directory
                warnings.clear();
                assertThat(KafkaRecoveryTest.load(kafka, log, false)).as(version + ": loaded again").isEqualTo(3);
                assertThat(warnings).as(version + ": nothing to repair the second time").isEmpty();
                assertThat(names(quarantine)).contains("00000000000000000010.log");
                ran.add(version);
            }
        }
        assertThat(ran).as("every catalog version from 4.0").hasSizeGreaterThanOrEqualTo(6);
        // recovered at load too (no index files), where Kafka ignores the value: repaired once per version, in recoverLog
        assertThat(events("repaired")).isEqualTo(ran.size());
        assertThat(errors).isEmpty();
    }

    @Test
    void aCompactedLogAndAHoleFreeLogAreLeftAsKafkaLeavesThem(@TempDir Path tmp) throws Exception {
        String version = "4.1.2";
        try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage(version, repairWoven(version))) {
            install(tmp.resolve("q"));
            Path compacted = writeCutLog(kafka, tmp.resolve("dir1").resolve("orders-3"));
            assertThat(KafkaRecoveryTest.load(kafka, compacted, true)).isEqualTo(20);

            Path whole = tmp.resolve("dir2").resolve("orders-3");
            kafka.writeLog(whole, 10, 15);
            assertThat(KafkaRecoveryTest.load(kafka, whole, false)).isEqualTo(20);
        }
        assertThat(tmp.resolve("q")).doesNotExist();
        assertThat(warnings).isEmpty();
        assertThat(registry.find(MitigationMetrics.EVENTS).counters()).isEmpty();
    }

    /** A file already in the quarantine where a link must go: the links made are removed and Kafka's value stands. */
    @Test
    void aFailedHardLinkLeavesTheLogAsStock(@TempDir Path tmp) throws Exception {
        String version = "4.1.2";
        Path quarantine = Files.createDirectories(tmp.resolve("q").resolve("orders-3-" + NOW));
        Files.write(quarantine.resolve(KafkaRecordsWriter.name(15)), new byte[] {1});
        try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage(version, repairWoven(version))) {
            install(tmp.resolve("q"));
            Path log = writeCutLog(kafka, tmp.resolve("dir").resolve("orders-3"));
            assertThat(KafkaRecoveryTest.load(kafka, log, false)).isEqualTo(20);
            assertThat(log.resolve(KafkaRecordsWriter.name(10))).exists();
        }
        assertThat(names(quarantine)).containsExactly(KafkaRecordsWriter.name(15));
        assertThat(events("link_failed")).isEqualTo(1);
        assertThat(warnings).anyMatch(w -> w.startsWith("hole-repair not done in orders-3: could not hard-link"));
    }

    /**
     * A quarantine dir given in the option inside the log dir, or inside another of the broker's log dirs, would stop
     * Kafka's next loadLogs (the default one is inside the partition dir, where the loaders skip directories).
     */
    @Test
    void aQuarantineInsideALogDirIsRefused(@TempDir Path tmp) throws Exception {
        String version = "4.1.2";
        try (KafkaRecordsWriter kafka = KafkaRecordsWriter.withStorage(version, repairWoven(version))) {
            install(tmp.resolve("dir").resolve("quarantine"));
            Path log = writeCutLog(kafka, tmp.resolve("dir").resolve("orders-3"));
            assertThat(KafkaRecoveryTest.load(kafka, log, false)).isEqualTo(20);

            install(tmp.resolve("other").resolve("quarantine"), tmp.resolve("dir2"), tmp.resolve("other"));
            Path log2 = writeCutLog(kafka, tmp.resolve("dir2").resolve("orders-3"));
            assertThat(KafkaRecoveryTest.load(kafka, log2, false)).isEqualTo(20);
        }
        assertThat(tmp.resolve("dir").resolve("quarantine")).doesNotExist();
        assertThat(tmp.resolve("other").resolve("quarantine")).doesNotExist();
        assertThat(events("skipped_quarantine_in_log_dir")).isEqualTo(2);
        assertThat(warnings).anyMatch(w -> w.contains("is inside the log dir " + tmp.resolve("other")));
    }

    /**
     * The Scala versions (2.8-3.9), from their class files: the recoverLog the mark is woven into is in the class that
     * holds recoverSegment, calls it, and deletes the later segments (removeAndDeleteSegments*) on a positive value.
     */
    @Test
    void everyVersionsRecoverLogCallsRecoverSegmentAndDeletesTheLaterSegments() throws Exception {
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (String version : KafkaJars.catalog()) {
            try (KafkaJars jars = KafkaJars.of(version)) {
                TargetResolver resolver = new TargetResolver(jars.pool(), version);
                Resolution recoverLog = resolver.resolve(KafkaTargets.RECOVER_LOG);
                Resolution segment = resolver.resolve(KafkaTargets.SEGMENT_RECOVERED);
                if (!recoverLog.isResolved() || !segment.isResolved()
                    || !recoverLog.methodsByClass().keySet().equals(segment.methodsByClass().keySet())) {
                    wrong.add(version + ": recoverLog " + recoverLog + ", recoverSegment " + segment);
                    continue;
                }
                for (String type : recoverLog.methodsByClass().keySet()) {
                    List<String> calls = ClassCalls.in(KafkaJars.root().resolve(version), type, "recoverLog");
                    if (!calls.contains("recoverSegment") || calls.stream().noneMatch(c -> c.startsWith("removeAndDeleteSegments"))) {
                        wrong.add(version + " " + type + ".recoverLog calls " + calls);
                    }
                    checked++;
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(checked).isEqualTo(KafkaJars.catalog().size());
    }

    /** The start-up line's clause: whether hole-repair is on, and where its quarantine goes. */
    @Test
    void theStartupClauseSaysWhetherHoleRepairIsOn() throws Exception {
        Instrumentation inst = ByteBuddyAgent.install();
        try (KafkaJars jars = KafkaJars.of("3.6.2")) {
            TargetResolver resolver = new TargetResolver(jars.pool(), "3.6.2");
            HoleDetection off = HoleDetection.install(inst, resolver, registry, BrokerLog.get(), false, null);
            off.stop();
            assertThat(off.summary()).isEqualTo("hole detection on");
            HoleDetection on = HoleDetection.install(inst, resolver, registry, BrokerLog.get(), false,
                new HoleDetection.RepairSettings(Paths.get("/data/q"), Collections.emptyList(), metrics));
            on.stop();
            assertThat(on.summary()).startsWith("hole detection on; hole-repair on (").contains("/data/q");
        }
    }

    private static List<Path> quarantines(Path partitionDir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(HoleRepair.QUARANTINE_PREFIX)).toList();
        }
    }

    private void install(Path quarantineDir, Path... logDirRoots) {
        HoleRepair repair = new HoleRepair(quarantineDir, Arrays.asList(logDirRoots), warnings::add, metrics, () -> NOW);
        HoleHooks.install(new HoleDetector(new HoleReport(registry, warnings::add, errors::add, null)), repair);
    }

    private static Map<String, byte[]> repairWoven(String version) throws Exception {
        return Collections.singletonMap(KafkaRecoveryTest.STORAGE + "LogLoader", KafkaRecoveryTest.weaveLogLoader(version,
            Advice.to(SegmentRepairAdvice.class).on(KafkaTargets.SEGMENT_RECOVERED.advisable()),
            Advice.to(RecoverLogAdvice.class).on(KafkaTargets.RECOVER_LOG.advisable())));
    }

    /** Offsets 0-2 kept and 3-9 cut in the first segment, 10-14 and 15-19 in two later ones: one hole. */
    private static Path writeCutLog(KafkaRecordsWriter kafka, Path log) throws Exception {
        HolesOnEveryVersionTest.truncate(log.resolve(KafkaRecordsWriter.name(0)), kafka.writeLog(log, 10, 15));
        return log;
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    private double events(String event) {
        Counter c = registry.find(MitigationMetrics.EVENTS).tag("mitigation", "hole-repair").tag("event", event).counter();
        return c == null ? 0 : c.count();
    }
}
