package io.stallscope.it.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The Kafka versions the harness supports, and the subset the integration tests run. The supported list
 * comes from the parent pom's {@code stallscope.kafka.supported} (through a filtered resource), the same
 * list the agent's catalog test resolves its targets against; the constants below name some of them for
 * tests and must be in it.
 */
public final class KafkaVersions {

    public static final KafkaVersion V2_8_2 = KafkaVersion.of("2.8.2");
    public static final KafkaVersion V3_4_1 = KafkaVersion.of("3.4.1");
    public static final KafkaVersion V3_6_2 = KafkaVersion.of("3.6.2");
    public static final KafkaVersion V3_7_2 = KafkaVersion.of("3.7.2");
    public static final KafkaVersion V3_9_2 = KafkaVersion.of("3.9.2");
    public static final KafkaVersion V4_0_2 = KafkaVersion.of("4.0.2");
    public static final KafkaVersion V4_1_2 = KafkaVersion.of("4.1.2");
    public static final KafkaVersion V4_2_1 = KafkaVersion.of("4.2.1");
    public static final KafkaVersion V4_3_1 = KafkaVersion.of("4.3.1");
    public static final KafkaVersion V4_4_0 = KafkaVersion.of("4.4.0");

    /** Every version the harness knows how to run, oldest first. */
    public static final List<KafkaVersion> SUPPORTED = parseList(fromPom());

    /**
     * The versions the per-version integration tests run in CI (one broker at a time): one per layout of Kafka's
     * storage classes and the newest. scripts/beyond-ci runs the other supported versions
     * ({@code -Dstallscope.kafka.versions}); the broker-free catalog check covers them all in CI.
     */
    public static final List<KafkaVersion> TESTED = List.of(
            V2_8_2, V3_6_2, V3_9_2, V4_1_2, V4_4_0);

    public static final KafkaVersion NEWEST = SUPPORTED.get(SUPPORTED.size() - 1);

    static {
        for (KafkaVersion v : List.of(V2_8_2, V3_4_1, V3_6_2, V3_7_2, V3_9_2, V4_0_2, V4_1_2, V4_2_1, V4_3_1, V4_4_0)) {
            if (!SUPPORTED.contains(v)) {
                throw new IllegalStateException("KafkaVersions names " + v + ", which stallscope.kafka.supported "
                    + SUPPORTED + " (parent pom) does not list");
            }
        }
    }

    private KafkaVersions() {
    }

    private static String fromPom() {
        Properties p = new Properties();
        try (InputStream in = KafkaVersions.class.getResourceAsStream("kafka-versions.properties")) {
            if (in == null) {
                throw new IllegalStateException("kafka-versions.properties missing: build integration-tests with Maven");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String list = p.getProperty("supported", "");
        if (list.isBlank() || list.contains("${")) {
            throw new IllegalStateException("stallscope.kafka.supported not filled into kafka-versions.properties: " + list);
        }
        return list;
    }

    /**
     * The versions to test: {@link #TESTED}, or the comma-separated list in the system property
     * {@code stallscope.kafka.versions} (e.g. {@code -Dstallscope.kafka.versions=3.9.2,4.4.0}).
     */
    public static List<KafkaVersion> tested() {
        String override = System.getProperty("stallscope.kafka.versions", "").trim();
        if (override.isEmpty()) {
            return TESTED;
        }
        return parseList(override);
    }

    public static List<KafkaVersion> parseList(String commaSeparated) {
        return Stream.of(commaSeparated.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .map(KafkaVersion::of)
                .toList();
    }
}
