package io.stallscope.testcontainers;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/** Which of the agent's op series a query covers: an op, and maybe a role and a topic-partition. */
public final class Selection {
    private final Op op;
    private final Role role;
    private final String topic;
    private final Integer partition;

    private Selection(Op op, Role role, String topic, Integer partition) {
        this.op = Objects.requireNonNull(op, "op");
        this.role = role;
        this.topic = topic;
        this.partition = partition;
    }

    static Selection of(Op op) {
        return new Selection(op, null, null, null);
    }

    Selection role(Role role) {
        return new Selection(op, Objects.requireNonNull(role, "role"), topic, partition);
    }

    Selection topicPartition(String topic, int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("a partition is 0 or more, not " + partition);
        }
        return new Selection(op, role, Objects.requireNonNull(topic, "topic"), partition);
    }

    public boolean byTopicPartition() {
        return topic != null;
    }

    /** The labels a series must carry to be covered. */
    Map<String, String> labels() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("op", op.label());
        if (role != null) {
            m.put("role", role.label());
        }
        if (topic != null) {
            m.put("topic", topic);
            m.put("partition", Integer.toString(partition));
        }
        return m;
    }

    @Override
    public String toString() {
        return op.label() + (role == null ? " on any thread" : " on " + role.label())
                + (topic == null ? "" : " of " + topic + "-" + partition);
    }
}
