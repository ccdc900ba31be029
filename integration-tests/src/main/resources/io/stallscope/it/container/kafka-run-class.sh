#!/bin/sh
# The image's entrypoint: starts a Kafka class the way Kafka's bin/kafka-run-class.sh does, so that
# KAFKA_OPTS (e.g. -javaagent:...), KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS, KAFKA_LOG4J_OPTS,
# LOG_DIR and JAVA_HOME mean what they mean to an operator. The options are split on whitespace,
# unquoted, exactly as the original script does.
# Usage: kafka-run-class.sh CLASS [ARGS...], e.g. kafka-run-class.sh kafka.Kafka server.properties
base_dir=/opt/kafka

if [ -z "$CLASSPATH" ]; then
  # libs/classpath.txt keeps the resolved order (the original globs libs/*, sorted)
  while IFS= read -r jar; do
    CLASSPATH="${CLASSPATH:+$CLASSPATH:}$base_dir/libs/$jar"
  done < "$base_dir/libs/classpath.txt"
fi

if [ -z "$JAVA_HOME" ]; then JAVA="java"; else JAVA="$JAVA_HOME/bin/java"; fi

if [ -z "$LOG_DIR" ]; then LOG_DIR="$base_dir/logs"; fi
KAFKA_LOG4J_OPTS="-Dkafka.logs.dir=$LOG_DIR $KAFKA_LOG4J_OPTS"

if [ -z "$KAFKA_HEAP_OPTS" ]; then KAFKA_HEAP_OPTS="-Xmx256M"; fi
if [ -z "$KAFKA_JVM_PERFORMANCE_OPTS" ]; then
  KAFKA_JVM_PERFORMANCE_OPTS="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true"
fi

# exec: the JVM becomes the container's main process and gets the engine's SIGTERM on stop
exec "$JAVA" $KAFKA_HEAP_OPTS $KAFKA_JVM_PERFORMANCE_OPTS $KAFKA_GC_LOG_OPTS $KAFKA_JMX_OPTS $KAFKA_LOG4J_OPTS -cp "$CLASSPATH" $KAFKA_OPTS "$@"
