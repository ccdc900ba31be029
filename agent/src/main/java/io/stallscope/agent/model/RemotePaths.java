package io.stallscope.agent.model;

import io.stallscope.agent.bootstrap.SubjectWith;
import io.stallscope.agent.kafka.KafkaMembers;

import java.lang.reflect.Method;
import java.util.Locale;

/**
 * The path of a remote (tiered-storage) op: {@code remote:TOPIC-PARTITION/OFFSET-SEGMENTID.SUFFIX}, named as Kafka's own
 * LocalTieredStorage names a remote segment's files (the offset in 20 digits, the segment's Uuid; .log for its records,
 * .index, .timeindex, .txnindex, .snapshot, .leader-epoch-checkpoint for an index). It names the topic-partition for
 * the reports; a remote read's, whose segment is not known when it starts, is {@code remote:TOPIC-PARTITION}. It is in no
 * log dir, so nothing learns a log dir from it and no local op pairs with it.
 */
public final class RemotePaths {
    public static final String PREFIX = "remote:";

    private static final ClassValue<Method[]> ACCESSORS = new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> type) {
            try {
                Method topicIdPartition = type.getMethod(KafkaMembers.REMOTE_TOPIC_ID_PARTITION);
                Class<?> tip = topicIdPartition.getReturnType();
                Method segmentId = type.getMethod(KafkaMembers.REMOTE_SEGMENT_ID);
                return new Method[] {topicIdPartition, tip.getMethod(KafkaMembers.REMOTE_TOPIC),
                    tip.getMethod(KafkaMembers.REMOTE_PARTITION), type.getMethod(KafkaMembers.REMOTE_START_OFFSET),
                    segmentId, segmentId.getReturnType().getMethod(KafkaMembers.REMOTE_SEGMENT_ID_ID)};
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    };

    /** RemoteStorageFetchInfo: how to reach its TopicPartition or TopicIdPartition, and their topic() and partition(). */
    private static final ClassValue<java.lang.reflect.Member[]> READ_ACCESSORS = new ClassValue<java.lang.reflect.Member[]>() {
        @Override
        protected java.lang.reflect.Member[] computeValue(Class<?> type) {
            try {
                java.lang.reflect.Member partition;
                Class<?> partitionType;
                try {
                    java.lang.reflect.Field f = type.getField(KafkaMembers.REMOTE_FETCH_INFO_PARTITION);
                    partition = f;
                    partitionType = f.getType();
                } catch (NoSuchFieldException e) {
                    Method m = type.getMethod(KafkaMembers.REMOTE_TOPIC_ID_PARTITION);
                    partition = m;
                    partitionType = m.getReturnType();
                }
                return new java.lang.reflect.Member[] {partition, partitionType.getMethod(KafkaMembers.REMOTE_TOPIC),
                    partitionType.getMethod(KafkaMembers.REMOTE_PARTITION)};
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    };

    private RemotePaths() {
    }

    /** Whether the subject is one this class names: a remote segment's metadata, alone or with a detail. */
    static boolean isRemote(Object subject) {
        Object s = subject instanceof SubjectWith ? ((SubjectWith) subject).subject() : subject;
        return s != null && (isMetadata(s.getClass()) || s.getClass().getName().equals(KafkaMembers.REMOTE_FETCH_INFO));
    }

    /** A remote read's path, {@code remote:TOPIC-PARTITION}, from its RemoteStorageFetchInfo, or null. */
    private static String readPathOf(Object fetchInfo) {
        try {
            java.lang.reflect.Member[] m = READ_ACCESSORS.get(fetchInfo.getClass());
            if (m == null) {
                return null;
            }
            Object tp = m[0] instanceof java.lang.reflect.Field ? ((java.lang.reflect.Field) m[0]).get(fetchInfo)
                : ((Method) m[0]).invoke(fetchInfo);
            return tp == null ? null : PREFIX + ((Method) m[1]).invoke(tp) + "-" + ((Method) m[2]).invoke(tp);
        } catch (Throwable t) {
            return null;
        }
    }

    /** The path of a remote segment's metadata (with an index type as detail), or null. Never throws. */
    static String pathOf(Object subject) {
        try {
            Object metadata = subject;
            Object indexType = null;
            if (subject instanceof SubjectWith) {
                metadata = ((SubjectWith) subject).subject();
                indexType = ((SubjectWith) subject).detail();
            }
            if (metadata != null && metadata.getClass().getName().equals(KafkaMembers.REMOTE_FETCH_INFO)) {
                return readPathOf(metadata);
            }
            Method[] m = metadata == null ? null : ACCESSORS.get(metadata.getClass());
            if (m == null) {
                return null;
            }
            Object tip = m[0].invoke(metadata);
            Object segmentId = m[4].invoke(metadata);
            return PREFIX + m[1].invoke(tip) + "-" + m[2].invoke(tip) + "/"
                + String.format(Locale.ROOT, "%020d", (Long) m[3].invoke(metadata)) + "-" + m[5].invoke(segmentId)
                + suffix(indexType);
        } catch (Throwable t) {
            return null;
        }
    }

    public static boolean isRemotePath(String path) {
        return path != null && path.startsWith(PREFIX);
    }

    /** The topic-partition of a remote path, or null. */
    static TopicPartition topicPartition(String path) {
        int slash = path.indexOf('/', PREFIX.length());
        return LogPaths.partitionDir(slash < 0 ? path.substring(PREFIX.length()) : path.substring(PREFIX.length(), slash));
    }

    /** RemoteStorageManager.IndexType by name, as the local file of that index ends. */
    static String suffix(Object indexType) {
        if (indexType == null) {
            return ".log";
        }
        String name = indexType.toString();
        switch (name) {
            case "OFFSET":
                return ".index";
            case "TIMESTAMP":
                return ".timeindex";
            case "TRANSACTION":
                return ".txnindex";
            case "PRODUCER_SNAPSHOT":
                return ".snapshot";
            case "LEADER_EPOCH":
                return ".leader-epoch-checkpoint";
            default:
                return "." + name.toLowerCase(Locale.ROOT);
        }
    }

    private static boolean isMetadata(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(KafkaMembers.REMOTE_SEGMENT_METADATA)) {
                return true;
            }
        }
        return false;
    }
}
