package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaJars;
import io.stallscope.agent.kafka.KafkaReleases;
import io.stallscope.agent.kafka.TargetResolver;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * roll-flush against the real jars of every catalog version (the last patch of every minor, 2.8 to 4.4):
 * it applies every part it needs or none, and a start-up line that says which part is missing. A partial
 * roll-flush is weaker than Kafka: snapshots deferred by the roll with no barrier to sync them before the
 * recovery point moves.
 */
class RollFlushMitigationTest {
    private static final String PSM_SCALA = "kafka.log.ProducerStateManager$";
    private static final String PSM_JAVA = "org.apache.kafka.storage.internals.log.ProducerStateManager";

    @Test
    void everyCatalogVersionGetsEveryPartOrIsNotNeeded() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (String version : KafkaJars.catalog()) {
            try (KafkaJars jars = KafkaJars.of(version)) {
                RollFlushMitigation m = RollFlushMitigation.resolve(new TargetResolver(jars.pool(), version), version);
                Set<String> woven = new TreeSet<>(m.transformations().byType().keySet());
                Set<String> expected = partsOf(version);
                if (expected.isEmpty()) {
                    if (m.applies() || !woven.isEmpty() || !m.describe().startsWith("roll-flush not needed on Kafka " + version)) {
                        wrong.add(version + ": expected not needed, got " + m.describe() + " " + woven);
                    }
                } else if (!m.applies() || !woven.equals(expected)) {
                    wrong.add(version + ": expected " + expected + " woven, got " + woven + " -- " + m.describe());
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    /** 3.0.2's jars read as 3.1: the LocalLog.markFlushed barrier 3.1 needs is missing, so no part is applied. */
    @Test
    void aMissingMarkFlushedSkipsEveryPartAndSaysSo() throws Exception {
        try (KafkaJars jars = KafkaJars.of("3.0.2")) {
            RollFlushMitigation m = RollFlushMitigation.resolve(new TargetResolver(jars.pool(), "3.1.0"), "3.1.0");
            assertThat(m.applies()).isFalse();
            assertThat(m.transformations().byType()).as("no part applied").isEmpty();
            assertThat(m.describe()).startsWith("roll-flush skipped on Kafka 3.1.0: no LocalLog.markFlushed(long)")
                .endsWith("Kafka's behaviour is unchanged");
        }
    }

    /**
     * The classes roll-flush must weave in each version: the snapshot write, the roll, the log's flush (in the
     * class that rolls), the segment flush, and LocalLog.markFlushed where there is a LocalLog (3.1 to 3.6).
     * Empty: not needed, Kafka 3.7 fsyncs the snapshot off the roll itself.
     */
    private static Set<String> partsOf(String version) {
        Set<String> parts = new TreeSet<>();
        if (KafkaReleases.compare(version, "3.7") >= 0) {
            return parts;
        }
        parts.add(KafkaReleases.compare(version, "3.5") < 0 ? PSM_SCALA : PSM_JAVA);
        parts.add("kafka.log.LogSegment");
        if (KafkaReleases.compare(version, "3.1") < 0) {
            parts.add("kafka.log.Log");
        } else {
            parts.add("kafka.log.UnifiedLog");
            parts.add("kafka.log.LocalLog");
        }
        return parts;
    }
}
