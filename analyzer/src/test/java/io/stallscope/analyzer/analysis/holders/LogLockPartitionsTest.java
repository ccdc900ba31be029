package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.model.Span;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Which topic-partition a holder's agent ops name during a wait, on spans laid out by hand. */
class LogLockPartitionsTest {
    private static Span span(int thread, long start, long end, String topic, int partition) {
        return new Span("stallscope.RecordsAppend", start, end, thread, "records_append", "request_handler", topic, partition, 1, null, false);
    }

    private final LogLockPartitions logs = new LogLockPartitions(List.of(
            span(1, 100, 200, "orders", 0),
            span(1, 300, 400, "orders", 1),
            // a long op with a short one of another partition nested in it
            span(2, 1_000, 5_000, "orders", 2),
            span(2, 1_100, 1_200, "orders", 3),
            // no partition, and no topic: they name no log
            span(3, 100, 900, "orders", -1),
            span(3, 100, 900, null, -1)));

    @Test
    void theHoldersOpThatEndedLastInTheWaitNamesTheLog() {
        assertThat(logs.of(1, 150, 250)).isEqualTo("orders-0");
        assertThat(logs.of(1, 150, 350)).isEqualTo("orders-1");
        assertThat(logs.of(1, 390, 1_000)).isEqualTo("orders-1");
        // the long op still runs when the nested one ended: it is the one nearest the release
        assertThat(logs.of(2, 1_150, 1_300)).isEqualTo("orders-2");
        assertThat(logs.of(2, 4_000, 4_500)).isEqualTo("orders-2");
    }

    @Test
    void noOpOfTheHolderInTheWaitNamesNothing() {
        assertThat(logs.of(1, 201, 299)).isNull();
        assertThat(logs.of(1, 401, 900)).isNull();
        assertThat(logs.of(1, 0, 99)).isNull();
        // thread 2's ops are not thread 1's
        assertThat(logs.of(9, 1_000, 2_000)).isNull();
        assertThat(logs.of(3, 100, 900)).isNull();
    }

    private static final String APPEND = "kafka.log.UnifiedLog.append";

    @Test
    void onlyLocksTakenInKafkasLogClassesAreLogLocks() {
        assertThat(LogLockPartitions.isLogMethod("kafka.log.Log.append")).isTrue();
        assertThat(LogLockPartitions.isLogMethod("kafka.log.UnifiedLog.$anonfun$append$2")).isTrue();
        assertThat(LogLockPartitions.isLogMethod("kafka.log.LocalLog.roll")).isTrue();
        assertThat(LogLockPartitions.isLogMethod("org.apache.kafka.storage.internals.log.UnifiedLog.append")).isTrue();
        assertThat(LogLockPartitions.isLogMethod("kafka.log.LogManager.getOrCreateLog")).isFalse();
        assertThat(LogLockPartitions.isLogMethod("kafka.log.LogCleaner.cleanLog")).isFalse();
        assertThat(LogLockPartitions.isLogMethod("kafka.cluster.Partition.appendRecordsToLeader")).isFalse();
        assertThat(LogLockPartitions.isLogMethod("jdk.jfr.internal.MetadataRepository.register")).isFalse();
        assertThat(LogLockPartitions.isLogMethod("?")).isFalse();
    }

    @Test
    void talliesCountWaitsPerLockAndLogAndMergeInOrder() {
        LogLockPartitions.Tally a = logs.tally();
        a.add("L", APPEND, 1, 150, 250);
        a.add("L", APPEND, 1, 150, 350);
        a.add("L", APPEND, 1, 201, 299);
        LogLockPartitions.Tally b = logs.tally();
        b.add("L", APPEND, 1, 350, 360);
        b.add("M", APPEND, 2, 1_150, 1_300);
        // taken outside Kafka's log classes: a lock held during an append is not the log's for that
        b.add("N", "kafka.coordinator.group.GroupMetadata.inLock", 1, 150, 250);
        a.merge(b);
        assertThat(a.of("L")).containsExactly(new LogLockPartitions.Share("orders-1", 2, 210), new LogLockPartitions.Share("orders-0", 1, 100));
        assertThat(a.of("M")).containsExactly(new LogLockPartitions.Share("orders-2", 1, 150));
        assertThat(a.of("N")).isEmpty();
    }
}
