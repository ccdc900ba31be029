package io.stallscope.it.broker;

import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A released Apache Kafka version ({@code major.minor.patch}) and the facts about it that the harness
 * needs: which metadata mode and logging backend it uses, and which log line announces readiness.
 */
public record KafkaVersion(int major, int minor, int patch) implements Comparable<KafkaVersion> {
    /** Every point the agent has (what its start-up line counts "of"). */
    public static final int AGENT_POINTS_ALL = 23;

    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)");

    public KafkaVersion {
        if (major < 0 || minor < 0 || patch < 0) {
            throw new IllegalArgumentException("negative version component: " + major + "." + minor + "." + patch);
        }
    }

    /** Parses {@code "3.9.2"}; rejects anything that is not three dot-separated numbers. */
    public static KafkaVersion of(String text) {
        Objects.requireNonNull(text, "version");
        Matcher m = VERSION.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a Kafka version (expected major.minor.patch): '" + text + "'");
        }
        return new KafkaVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
    }

    public boolean isAtLeast(int major, int minor, int patch) {
        return compareTo(new KafkaVersion(major, minor, patch)) >= 0;
    }

    /**
     * Whether AbstractIndex has KAFKA-19390's remap lock (the agent's index_remap_wait point): by the jars on Maven
     * Central, 3.9.2, 4.0.2 and 4.1.1 on.
     */
    public boolean hasIndexRemapLock() {
        return isAtLeast(4, 1, 1) || major == 4 && minor == 0 && patch >= 2 || major == 3 && minor == 9 && patch >= 2;
    }

    /**
     * The agent's points in this Kafka: snapshot_flush from 3.7 (KAFKA-15046), index_remap_wait with its lock, the four
     * tiered-storage plugin calls (remote_*) from 3.5, where kafka-storage has ClassLoaderAwareRemoteStorageManager,
     * and the remote read's queue wait and run, the remote index cache's loads and (counted) lookups, and the expiry of a
     * remote fetch (which ends the wait of a read cancelled in the queue) from 3.6 (RemoteLogReader).
     */
    public int agentPoints() {
        return 12 + (isAtLeast(3, 7, 0) ? 1 : 0) + (hasIndexRemapLock() ? 1 : 0) + (isAtLeast(3, 5, 0) ? 4 : 0)
            + (isAtLeast(3, 6, 0) ? 5 : 0);
    }

    /**
     * ZooKeeper mode for versions before 3.3 (KRaft was not production ready before 3.3, and 2.8's
     * KRaft was an early-access preview). Everything from 3.3 runs in KRaft combined mode.
     */
    public boolean usesZooKeeper() {
        return !isAtLeast(3, 3, 0);
    }

    public boolean usesKRaft() {
        return !usesZooKeeper();
    }

    /** Kafka 4.0 moved from log4j 1.x (reload4j in 3.x) to log4j2. */
    public boolean usesLog4j2() {
        return major >= 4;
    }

    /** The log line (message plus logger) that the broker writes once it serves requests. */
    public String readyLogLine() {
        return usesZooKeeper() ? "started (kafka.server.KafkaServer)" : "Kafka Server started (kafka.server.KafkaRaftServer)";
    }

    /** Main class of ConsumerPerformance: {@code kafka.tools} up to 3.4, {@code org.apache.kafka.tools} from 3.5. */
    public String consumerPerformanceClass() {
        return isAtLeast(3, 5, 0) ? "org.apache.kafka.tools.ConsumerPerformance" : "kafka.tools.ConsumerPerformance";
    }

    @Override
    public int compareTo(KafkaVersion o) {
        int c = Integer.compare(major, o.major);
        if (c == 0) c = Integer.compare(minor, o.minor);
        if (c == 0) c = Integer.compare(patch, o.patch);
        return c;
    }

    @Override
    public String toString() {
        return major + "." + minor + "." + patch;
    }
}
