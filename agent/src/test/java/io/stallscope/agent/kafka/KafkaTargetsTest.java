package io.stallscope.agent.kafka;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The catalog against every supported Kafka's real jars, without a broker: each entry resolves to the
 * classes the table says, or is absent where the catalog says it may be, and nowhere is a shape found
 * that the catalog does not expect. When Kafka moves a method, this test names the entry, the version
 * and what it found instead.
 *
 * <p>The versions are stallscope.kafka.catalog (parent pom): the supported ones and the last patch of every minor
 * between them, so that a range the catalog claims has no unchecked minor inside it.
 * A new Kafka version: add it to stallscope.kafka.supported and .catalog (parent pom), its jars to the agent's pom
 * (kafka-jars), and its row below (the failure message prints the row the jars give).
 */
class KafkaTargetsTest {
    /**
     * One row per version, one cell per entry of {@link KafkaTargets#all()} in that order: where each
     * matched method is declared, by package ({@link #PACKAGES}), one token per method ("k+k": two methods
     * in kafka.log); "-" where the catalog expects it absent.
     */
    private static final String[] COLUMNS = {
        "segment.flush", "records.append", "index.resize", "jdk.transferTo", "log.roll", "snapshot.take",
        "snapshot.write", "snapshot.flush", "segment.inactive", "segment.read", "tls.transferFrom", "log.append",
        "index.lookup", "index.remap.read.lock", "remote.fetchLogSegment", "remote.fetchIndex",
        "remote.copyLogSegmentData", "remote.deleteLogSegmentData", "remote.asyncRead", "remote.reader.call",
        "remote.indexCache.load", "remote.indexCache.get", "remote.delayedFetch.expire", "prefetch.fetch.read", "prefetch.delayed.fetch.complete", "roll-flush.snapshot.write", "roll-flush.roll", "roll-flush.log.flush", "roll-flush.unifiedlog.flush",
        "roll-flush.locallog.markFlushed", "roll-flush.logdir.failure", "holes.segment.recovered", "holes.recover.log"};

    //          flush append index jdk roll take write flush inact read tls lapp lookup        remap  rfetch rindex rcopy  rdel   rsubm  rcall  rload  rget   rexp   pf.read pf.done rf.write rf.roll rf.lflush rf.uflush rf.mark rf.fail holes recover
    private static final String[] TABLE = {
        "2.8.2  k     r      k+k   jdk k    k    k     -     k     k    n   k    k+k+k+k    -     -      -      -      -      -      -      -      -      -      ks      ks      k        k       k         -         -       ks      k     k",
        "3.0.2  k     r      k+k   jdk k    k    k     -     k     k    n   k    k+k+k+k    -     -      -      -      -      -      -      -      -      -      ks      ks      k        k       k         -         -       ks      k     k",
        "3.1.2  k     r      k+k   jdk k    k    k     -     k     k    n   k    k+k+k+k    -     -      -      -      -      -      -      -      -      -      ks      ks      k        k       k         -         k       ks      k     k",
        "3.2.3  k     r      k+k   jdk k    k    k     -     k     k    n   k    k+k+k+k    -     -      -      -      -      -      -      -      -      -      ks      ks      k        k       -         k         k       ks      k     k",
        "3.3.2  k     r      k+k   jdk k    k    k     -     k     k    n   k    k+k+k+k    -     -      -      -      -      -      -      -      -      -      ks      ks      k        k       -         k         k       ks      k     k",
        "3.4.1  k     r      k+k   jdk k    k    k     -     k     k    n   k    k+k+k+k    -     -      -      -      -      -      -      -      -      -      ks      ks      k        k       -         k         k       ks      k     k",
        "3.5.2  k     r      s+s   jdk k    s    s     -     k     k    n   k    s+s+s+s    -     rs+rs  rs     rs     rs     -      -      -      -      -      ks      ks      s        k       -         k         k       s       k     k",
        "3.6.2  k     r      s+s   jdk k    s    s     -     k     k    n   k    s+s+s+s    -     rs+rs  rs     rs     rs     k      k      s      s      ks     ks      ks      s        k       -         k         k       s       k     k",
        "3.7.2  s     r      s+s   jdk k    s+s  s     k     s     s    n   k    s+s+s+s    -     rs+rs  rs     rs     rs     k      k      s      s      ks     ks      ks      -        k       -         k         k       s       k     k",
        "3.8.1  s     r      s+s   jdk k    s+s  s     k     s     s    n   k    s+s+s+s    -     rs+rs  rs     rs     rs     k      k      s      s      ks     ks      ks      -        k       -         k         k       s       k     k",
        "3.9.2  s     r      s+s   jdk k    s+s  s     k     s     s    n   k    s+s+s+s    s+s   rs+rs  rs     rs     rs     k      k      s      s      ks     ks      ks      -        k       -         k         k       s       k     k",
        "4.0.2  s     r      s+s   jdk k    s+s  s     k     s     s    n   k    s+s+s+s    s+s   rs+rs  rs     rs     rs     k      k      s      s      ks     ks      ks      -        k       -         k         -       s       s     s",
        "4.1.2  s     r      s+s   jdk s+s  s+s  s     s     s     s    n   s    s+s+s+s    s+s   rs+rs  rs     rs     rs     rs     rs     s      s      ks     ks      ks      -        -       -         s         -       s       s     s",
        "4.2.1  s     r      s+s   jdk s+s  s+s  s     s     s     s    n   s    s+s+s+s    s+s   rs+rs  rs     rs     rs     rs     rs     s      s      sp     ks      ks      -        -       -         s         -       s       s     s",
        "4.2.2  s     r      s+s   jdk s+s  s+s  s     s     s     s    n   s    s+s+s+s    s+s   rs+rs  rs     rs     rs     rs     rs     s      s      sp     ks      ks      -        -       -         s         -       s       s     s",
        "4.3.1  s     ri     s+s   jdk s+s  s+s  s     s     s     s    n   s    s+s+s+s    s+s   rs+rs  rs     rs     rs     rs     rs     s      s      sp     ks      ks      -        -       -         s         -       s       s     s",
        "4.4.0  s     ri     s+s   jdk s+s  s+s  s     s     s     s    n   s    s+s+s+s    s+s   rs+rs  rs     rs     rs     rs     rs     s      s      sp     ks      ks      -        -       -         s         -       s       s     s",
    };

    /** Longest prefix first: record.internal before record. */
    private static final String[][] PACKAGES = {
        {"org.apache.kafka.storage.internals.log.", "s"},
        {"org.apache.kafka.common.record.internal.", "ri"},
        {"org.apache.kafka.common.record.", "r"},
        {"org.apache.kafka.common.network.", "n"},
        {"org.apache.kafka.server.log.remote.storage.", "rs"},
        {"kafka.log.", "k"},
        {"kafka.server.", "ks"},
        {"org.apache.kafka.server.purgatory.", "sp"},
        {"sun.nio.ch.", "jdk"},
    };

    private static final Map<String, List<Resolution>> RESOLVED = new LinkedHashMap<>();

    @BeforeAll
    static void resolveEveryVersion() throws Exception {
        for (String version : KafkaJars.catalog()) {
            try (KafkaJars jars = KafkaJars.of(version)) {
                TargetResolver resolver = new TargetResolver(jars.pool(), version);
                List<Resolution> row = new ArrayList<>();
                for (KafkaTarget target : KafkaTargets.all()) {
                    row.add(resolver.resolve(target));
                }
                RESOLVED.put(version, row);
            }
        }
    }

    @Test
    void theTableTheJarsAndThePomListTheSameVersions() {
        List<String> tableVersions = new ArrayList<>();
        for (String row : TABLE) {
            tableVersions.add(row.trim().split("\\s+")[0]);
        }
        assertThat(tableVersions).as("versions in the table = stallscope.kafka.catalog").isEqualTo(KafkaJars.catalog());
        assertThat(KafkaJars.catalog()).as("the catalog list holds every supported version").containsAll(KafkaJars.supported());
        assertThat(KafkaJars.fetched()).as("versions the build fetched jars of (agent pom, kafka-jars)")
            .isEqualTo(KafkaJars.catalog());
        List<String> names = new ArrayList<>();
        for (KafkaTarget t : KafkaTargets.all()) {
            names.add(t.name());
        }
        assertThat(names).as("the table's columns").containsExactly(COLUMNS);
    }

    @Test
    void everyEntryResolvesWhereTheTableSays() {
        List<String> moved = new ArrayList<>();
        StringBuilder actualTable = new StringBuilder();
        for (String line : TABLE) {
            String[] cells = line.trim().split("\\s+");
            String version = cells[0];
            List<Resolution> row = RESOLVED.get(version);
            StringBuilder actual = new StringBuilder(version);
            for (int i = 0; i < row.size(); i++) {
                String found = cell(row.get(i));
                actual.append("  ").append(found);
                String expected = i + 1 < cells.length ? cells[i + 1] : "(no cell)";
                if (!expected.equals(found)) {
                    moved.add("Kafka " + version + ", " + COLUMNS[i] + ": expected " + expected + ", found " + found
                        + " -- " + row.get(i));
                }
            }
            actualTable.append("\n        \"").append(actual).append("\",");
        }
        assertThat(moved).as("what moved; the rows these jars give:" + actualTable).isEmpty();
    }

    /** Absent only where the catalog says why; resolved wherever it says it is expected. */
    @Test
    void theCatalogsVersionRangesMatchTheJars() {
        List<String> wrong = new ArrayList<>();
        RESOLVED.forEach((version, row) -> {
            for (Resolution r : row) {
                boolean expected = r.target().presence().expectedIn(version);
                if (r.status() == Resolution.Status.MISMATCHED) {
                    wrong.add("Kafka " + version + ": " + r);
                } else if (r.isResolved() != expected) {
                    wrong.add("Kafka " + version + ": " + r.target().name() + (expected ? " absent" : " present")
                        + " though the catalog says " + r.target().presence());
                }
            }
        });
        assertThat(wrong).isEmpty();
    }

    @Test
    void anAbsenceTheCatalogDoesNotExpectIsAMismatchThatSaysWhatWasFound() throws Exception {
        try (KafkaJars jars = KafkaJars.of("3.6.2")) {
            // 3.6.2 as if it were 3.7: its takeSnapshot-less flush is then a mismatch
            Resolution r = new TargetResolver(jars.pool(), "3.7.0").resolve(KafkaTargets.SNAPSHOT_FLUSH);
            assertThat(r.status()).isEqualTo(Resolution.Status.MISMATCHED);
            assertThat(r.reason()).startsWith("not as the catalog expects: ");
            Resolution unknown = new TargetResolver(jars.pool(), "unknown").resolve(KafkaTargets.SNAPSHOT_FLUSH);
            assertThat(unknown.status()).isEqualTo(Resolution.Status.EXPECTEDLY_ABSENT);
            assertThat(unknown.reason()).startsWith("expected before Kafka 3.7: ");
        }
        try (KafkaJars jars = KafkaJars.of("3.9.2")) {
            Resolution r = new TargetResolver(jars.pool(), "3.6.0").resolve(KafkaTargets.ROLL_SNAPSHOT_WRITE);
            assertThat(r.reason()).contains("found writeSnapshot(Ljava/io/File;Ljava/util/Map;Z)V");
        }
    }

    private static String cell(Resolution r) {
        if (!r.isResolved()) {
            return r.status() == Resolution.Status.EXPECTEDLY_ABSENT ? "-" : "MISMATCH";
        }
        List<String> tokens = new ArrayList<>();
        r.methodsByClass().forEach((className, methods) -> {
            for (int i = 0; i < methods.size(); i++) {
                tokens.add(packageOf(className));
            }
        });
        return String.join("+", tokens);
    }

    private static String packageOf(String className) {
        for (String[] p : PACKAGES) {
            if (className.startsWith(p[0])) {
                return p[1];
            }
        }
        return className;
    }
}
