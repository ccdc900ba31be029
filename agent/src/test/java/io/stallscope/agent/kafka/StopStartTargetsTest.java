package io.stallscope.agent.kafka;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stop/start breakdown's catalog entries ({@link KafkaTargets#stopStart()}) against every supported Kafka's
 * jars, as {@code KafkaTargetsTest} does for the timing points: each resolves where the table says, and none is
 * ever mismatched. Kept apart from that table so the two grow without touching each other's rows.
 */
class StopStartTargetsTest {
    private static final String[] COLUMNS = {
        "stopstart.logmanager.shutdown", "stopstart.logmanager.checkpoint", "stopstart.logmanager.loadLogs",
        "stopstart.logmanager.loadLog", "stopstart.log.flush", "stopstart.log.close", "stopstart.segment.close",
        "stopstart.index.trim", "stopstart.timeindex.lastEntry", "stopstart.records.trim", "stopstart.segment.recover",
        "stopstart.server.shutdown"};

    // 4.4: shutdown() and shutdown(long), which it calls (the breakdown counts the outer one); server: KafkaServer (z,
    // ZooKeeper mode, up to 3.9) and KafkaRaftServer (kr)
    //                          shutdown checkpt loadLogs loadLog flush close sclose trim  last  rtrim recover server
    private static final String[] TABLE = {
        "2.8.2   k        k+k     k        k       k     k     k      k     k     r     k     z+kr",
        "3.4.1   k        k+k     k        k       k     k     k      k     k     r     k     z+kr",
        "3.6.2   k        k+k     k        k       k     k     k      s     s     r     k     z+kr",
        "3.7.2   k        k+k     k        k       k     k     s      s     s     r     s     z+kr",
        "3.9.2   k        k+k     k        k       k     k     s      s     s     r     s     z+kr",
        "4.0.2   k        k+k     k        k       k     k     s      s     s     r     s     kr",
        "4.1.2   k        k+k     k        k       s     s     s      s     s     r     s     kr",
        "4.2.1   k        k+k     k        k       s     s     s      s     s     r     s     kr",
        "4.3.1   k        k+k     k        k       s     s     s      s     s     ri    s     kr",
        "4.4.0   s+s      s+s     s        s       s     s     s      s     s     ri    s     kr",
    };

    @Test
    void everyEntryResolvesWhereTheTableSays() throws Exception {
        List<String> names = new ArrayList<>();
        for (KafkaTarget t : KafkaTargets.stopStart()) {
            names.add(t.name());
        }
        assertThat(names).as("the table's columns").containsExactly(COLUMNS);
        List<String> versions = new ArrayList<>();
        List<String> moved = new ArrayList<>();
        StringBuilder actualTable = new StringBuilder();
        for (String line : TABLE) {
            String[] cells = line.trim().split("\\s+");
            versions.add(cells[0]);
        }
        assertThat(versions).as("versions in the table = stallscope.kafka.supported").isEqualTo(KafkaJars.supported());
        for (String line : TABLE) {
            String[] cells = line.trim().split("\\s+");
            String version = cells[0];
            StringBuilder actual = new StringBuilder(version);
            try (KafkaJars jars = KafkaJars.of(version)) {
                TargetResolver resolver = new TargetResolver(jars.pool(), version);
                List<KafkaTarget> targets = KafkaTargets.stopStart();
                for (int i = 0; i < targets.size(); i++) {
                    Resolution r = resolver.resolve(targets.get(i));
                    String found = cell(r);
                    actual.append("  ").append(found);
                    String expected = i + 1 < cells.length ? cells[i + 1] : "(no cell)";
                    if (!expected.equals(found)) {
                        moved.add("Kafka " + version + ", " + COLUMNS[i] + ": expected " + expected + ", found " + found
                            + " -- " + r);
                    }
                }
            }
            actualTable.append("\n        \"").append(actual).append("\",");
        }
        assertThat(moved).as("what moved; the rows these jars give:" + actualTable).isEmpty();
    }

    private static String cell(Resolution r) {
        if (!r.isResolved()) {
            return r.status() == Resolution.Status.EXPECTEDLY_ABSENT ? "-" : "MISMATCH";
        }
        List<String> tokens = new ArrayList<>();
        r.methodsByClass().forEach((className, methods) -> {
            for (int i = 0; i < methods.size(); i++) {
                tokens.add(className.startsWith("org.apache.kafka.storage.internals.log.") ? "s"
                    : className.startsWith("org.apache.kafka.common.record.internal.") ? "ri"
                    : className.startsWith("org.apache.kafka.common.record.") ? "r"
                    : className.startsWith("kafka.log.") ? "k"
                    : className.equals("kafka.server.KafkaServer") ? "z"
                    : className.equals("kafka.server.KafkaRaftServer") ? "kr" : className);
            }
        });
        return String.join("+", tokens);
    }
}
