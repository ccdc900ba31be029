package io.stallscope.agent.kafka;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reads an expiring DelayedRemoteFetch cancelled, from both of Kafka's shapes (classes shaped as Kafka's, by the
 * field names; RemoteReadQueueTest runs Kafka's own): only cancelled Futures, with their fetchInfo.
 */
class DelayedRemoteFetchesTest {
    /** 3.6-4.1: one read. */
    static class OneRead {
        private final Future<Void> remoteFetchTask;
        private final Object remoteFetchInfo;

        OneRead(Future<Void> task, Object info) {
            remoteFetchTask = task;
            remoteFetchInfo = info;
        }
    }

    /** 4.2+: a read per partition. */
    static class PerPartition {
        private final Map<String, Future<Void>> remoteFetchTasks;
        private final Map<String, Object> remoteFetchInfos;

        PerPartition(Map<String, Future<Void>> tasks, Map<String, Object> infos) {
            remoteFetchTasks = tasks;
            remoteFetchInfos = infos;
        }
    }

    @Test
    void oneReadIsNamedWhenItsFutureIsCancelled() throws Exception {
        CompletableFuture<Void> cancelled = new CompletableFuture<>();
        cancelled.cancel(false);
        assertThat(DelayedRemoteFetches.cancelledReads(new OneRead(cancelled, "orders-7"))).containsExactly("orders-7");
        assertThat(DelayedRemoteFetches.cancelledReads(new OneRead(CompletableFuture.completedFuture(null), "orders-7")))
            .as("a read that completed").isEmpty();
        assertThat(DelayedRemoteFetches.cancelledReads(new OneRead(new CompletableFuture<>(), "orders-7"))).isEmpty();
        assertThat(DelayedRemoteFetches.cancelledReads(new OneRead(cancelled, null))).isEmpty();
    }

    @Test
    void readsPerPartitionAreNamedForTheirCancelledFutures() throws Exception {
        CompletableFuture<Void> cancelled = new CompletableFuture<>();
        cancelled.cancel(false);
        Map<String, Future<Void>> tasks = new LinkedHashMap<>();
        tasks.put("orders-3", CompletableFuture.completedFuture(null));
        tasks.put("orders-7", cancelled);
        tasks.put("orders-9", cancelled);
        tasks.put("orders-11", null);
        Map<String, Object> infos = Map.of("orders-3", "info 3", "orders-7", "info 7", "orders-11", "info 11");
        List<Object> reads = DelayedRemoteFetches.cancelledReads(new PerPartition(tasks, infos));
        assertThat(reads).as("orders-9 has no fetchInfo").containsExactly("info 7");
    }

    @Test
    void aClassOfNeitherShapeIsRefused() {
        assertThatThrownBy(() -> DelayedRemoteFetches.cancelledReads("not a fetch"))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("java.lang.String");
    }
}
