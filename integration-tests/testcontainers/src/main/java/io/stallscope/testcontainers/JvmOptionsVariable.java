package io.stallscope.testcontainers;

/** Where the {@code -javaagent} argument goes: the variable the image's start script reads. */
public enum JvmOptionsVariable {
    /** Read by Kafka's own kafka-run-class.sh: apache/kafka, Strimzi, Confluent and most images. */
    KAFKA_OPTS,
    /** Read by the JVM itself: for images whose start script ignores KAFKA_OPTS. */
    JAVA_TOOL_OPTIONS
}
