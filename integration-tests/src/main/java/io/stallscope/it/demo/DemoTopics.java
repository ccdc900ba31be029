package io.stallscope.it.demo;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The demo's two topics: {@code orders}, with 1 MiB segments so that a busy writer rolls a segment
 * every second or so (on a production partition with 1 GiB segments that takes minutes: the demo
 * compresses time), and {@code backlog}, the history a late consumer catches up on.
 */
final class DemoTopics {
    static final Map<String, String> ORDERS_CONFIG = Map.of("segment.bytes", Integer.toString(1 << 20));
    static final Map<String, String> BACKLOG_CONFIG = Map.of("segment.bytes", Integer.toString(16 << 20));

    final String orders;
    final String backlog;

    DemoTopics(String prefix) {
        this.orders = prefix + "orders";
        this.backlog = prefix + "backlog";
    }

    /** Creates both (one partition each, the broker's default replication) and waits for their leaders. */
    void create(String bootstrap) {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            for (NewTopic t : List.of(new NewTopic(orders, Optional.of(1), Optional.empty()).configs(ORDERS_CONFIG),
                new NewTopic(backlog, Optional.of(1), Optional.empty()).configs(BACKLOG_CONFIG))) {
                try {
                    admin.createTopics(List.of(t)).all().get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("cannot create topic " + t.name() + " on " + bootstrap + ": "
                            + e.getCause().getMessage(), e);
                    }
                }
            }
            awaitLeaders(admin);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating topics on " + bootstrap + " timed out", e);
        }
    }

    private void awaitLeaders(Admin admin) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                var d = admin.describeTopics(List.of(orders, backlog)).allTopicNames().get(5, TimeUnit.SECONDS);
                if (d.values().stream().flatMap(t -> t.partitions().stream()).allMatch(p -> p.leader() != null)) {
                    return;
                }
            } catch (ExecutionException | TimeoutException e) {
                // not visible yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("topics " + orders + ", " + backlog + " have no leader after 30 s");
    }

    /** Deletes both (on someone else's broker: the demo removes what it created). */
    void delete(String bootstrap) {
        try (Admin admin = Admin.create(ClientConfigs.admin(bootstrap))) {
            admin.deleteTopics(List.of(orders, backlog)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot delete topics " + orders + ", " + backlog + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
