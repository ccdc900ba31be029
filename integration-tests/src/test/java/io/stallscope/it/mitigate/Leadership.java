package io.stallscope.it.mitigate;

import io.stallscope.it.agent.Polling;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Who leads a topic's partitions, and moving that, through the Admin API alone so that it works the same on
 * ZooKeeper (2.8) and KRaft: a reassignment to the same replicas in another order (no data moves) makes the
 * first one preferred, and a preferred-leader election makes it the leader once it is in sync.
 */
final class Leadership {
    private final Admin admin;
    private final String topic;

    Leadership(Admin admin, String topic) {
        this.admin = admin;
        this.topic = topic;
    }

    /** Each partition's leader, replicas (preferred first) and ISR, as the controller has them. */
    List<TopicPartitionInfo> partitions() throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
        return d.partitions();
    }

    /** Waits until {@code node} is in the ISR of every partition. */
    void awaitInSync(int node, Duration timeout) throws Exception {
        List<TopicPartitionInfo> last = Polling.until(timeout, this::partitionsOrEmpty,
            ps -> !ps.isEmpty() && ps.stream().allMatch(p -> ids(p.isr()).contains(node)));
        if (last.isEmpty() || !last.stream().allMatch(p -> ids(p.isr()).contains(node))) {
            throw new AssertionError("node " + node + " not in the ISR of every partition of " + topic + " after "
                + timeout.toSeconds() + " s: " + describe(last));
        }
    }

    /**
     * Makes {@code order.get(p)} partition p's replica order and elects each partition's first replica leader;
     * returns once every partition is led by it.
     */
    void lead(Map<Integer, List<Integer>> order, Duration timeout) throws Exception {
        Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
        order.forEach((p, replicas) -> moves.put(new TopicPartition(topic, p), Optional.of(new NewPartitionReassignment(replicas))));
        admin.alterPartitionReassignments(moves).all().get(30, TimeUnit.SECONDS);
        Set<TopicPartition> tps = moves.keySet();
        List<TopicPartitionInfo> last = Polling.until(timeout, Duration.ofMillis(500), () -> {
            try {
                if (admin.listPartitionReassignments(tps).reassignments().get(10, TimeUnit.SECONDS).isEmpty()) {
                    // partitions already led by their preferred replica answer "election not needed": not a failure
                    admin.electLeaders(ElectionType.PREFERRED, tps).partitions().get(10, TimeUnit.SECONDS);
                }
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // the controller may not have the new order yet, or (2.8's ZooKeeper controller, right after node 3's
                // restart) not answer within 10 s: the next round asks again, bounded by the timeout. An uncaught
                // timeout here once ended a 2.8.2 stress cut with no result line.
            }
            return partitionsOrEmpty();
        }, ps -> led(ps, order));
        if (!led(last, order)) {
            throw new AssertionError("partitions of " + topic + " not led by " + order + " after " + timeout.toSeconds()
                + " s: " + describe(last));
        }
    }

    /** Partition number to leader id, -1 for none. */
    Map<Integer, Integer> leaders() throws Exception {
        return partitions().stream().collect(Collectors.toMap(TopicPartitionInfo::partition,
            p -> p.leader() == null ? -1 : p.leader().id()));
    }

    private static boolean led(List<TopicPartitionInfo> ps, Map<Integer, List<Integer>> order) {
        return ps.size() == order.size() && ps.stream().allMatch(p -> p.leader() != null
            && p.leader().id() == order.get(p.partition()).get(0)
            && ids(p.replicas()).equals(order.get(p.partition())));
    }

    private List<TopicPartitionInfo> partitionsOrEmpty() {
        try {
            return partitions();
        } catch (Exception e) {
            return List.of(); // the controller is electing, or the broker asked is the one just killed
        }
    }

    static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    static String describe(List<TopicPartitionInfo> ps) {
        return ps.stream().map(p -> p.partition() + ": leader " + (p.leader() == null ? "none" : p.leader().id())
            + ", replicas " + ids(p.replicas()) + ", isr " + ids(p.isr())).collect(Collectors.joining("; "));
    }
}
