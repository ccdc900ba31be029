package io.stallscope.agent.kafka;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

/**
 * What the agent reads of an expiring DelayedRemoteFetch ({@link KafkaTargets#REMOTE_FETCH_EXPIRY}): the fetchInfo of
 * each of its remote reads whose Future is cancelled. One read in 3.6-4.1 (private fields remoteFetchTask and
 * remoteFetchInfo), a read per partition from 4.2 (maps remoteFetchTasks and remoteFetchInfos by TopicIdPartition);
 * read by reflection, the fields found once per class.
 */
public final class DelayedRemoteFetches {
    /** [task, info] fields, the task's type telling the shape (Future: one read; Map: per partition); null: neither. */
    private static final ClassValue<Field[]> FIELDS = new ClassValue<Field[]>() {
        @Override
        protected Field[] computeValue(Class<?> type) {
            Field task = field(type, KafkaMembers.DELAYED_REMOTE_FETCH_TASK);
            Field info = field(type, KafkaMembers.DELAYED_REMOTE_FETCH_INFO);
            if (task != null && info != null && Future.class.isAssignableFrom(task.getType())) {
                return new Field[] {task, info};
            }
            task = field(type, KafkaMembers.DELAYED_REMOTE_FETCH_TASKS);
            info = field(type, KafkaMembers.DELAYED_REMOTE_FETCH_INFOS);
            if (task != null && info != null && Map.class.isAssignableFrom(task.getType())
                && Map.class.isAssignableFrom(info.getType())) {
                return new Field[] {task, info};
            }
            return null;
        }
    };

    private DelayedRemoteFetches() {
    }

    /**
     * The fetchInfo of each read of {@code delayedRemoteFetch} whose Future is cancelled (a read cancelled while it ran
     * is among them: the caller tells the two apart); empty when there is none.
     *
     * @throws IllegalStateException when the class has neither shape (the catalog's check rules that out)
     */
    public static List<Object> cancelledReads(Object delayedRemoteFetch) throws IllegalAccessException {
        Field[] fields = FIELDS.get(delayedRemoteFetch.getClass());
        if (fields == null) {
            throw new IllegalStateException(delayedRemoteFetch.getClass().getName() + " has no remote fetch task field");
        }
        Object task = fields[0].get(delayedRemoteFetch);
        Object info = fields[1].get(delayedRemoteFetch);
        if (task instanceof Future) {
            return ((Future<?>) task).isCancelled() && info != null ? Collections.singletonList(info)
                : Collections.emptyList();
        }
        if (!(task instanceof Map) || !(info instanceof Map)) {
            return Collections.emptyList();
        }
        List<Object> cancelled = new ArrayList<>(1);
        for (Map.Entry<?, ?> e : ((Map<?, ?>) task).entrySet()) {
            if (e.getValue() instanceof Future && ((Future<?>) e.getValue()).isCancelled()) {
                Object fetchInfo = ((Map<?, ?>) info).get(e.getKey());
                if (fetchInfo != null) {
                    cancelled.add(fetchInfo);
                }
            }
        }
        return cancelled;
    }

    private static Field field(Class<?> type, String name) {
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // the superclass's, if any
            }
        }
        return null;
    }
}
