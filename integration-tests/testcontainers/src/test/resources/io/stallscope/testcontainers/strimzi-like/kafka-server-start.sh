#!/bin/bash
# Stands in for Kafka's bin/kafka-server-start.sh in the Strimzi-like test image (no coreutils there: bash
# builtins only). Strimzi's test container runs "bin/kafka-server-start.sh CONFIG" from /opt/kafka; as Kafka's
# own script, it starts kafka.Kafka through kafka-run-class.sh, which reads KAFKA_OPTS.
if [ -z "${KAFKA_LOG4J_OPTS:-}" ]; then
  if compgen -G '/opt/kafka/libs/log4j-core-*.jar' > /dev/null; then
    export KAFKA_LOG4J_OPTS="-Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties"
  else
    export KAFKA_LOG4J_OPTS="-Dlog4j.configuration=file:/opt/kafka/config/log4j.properties"
  fi
fi
export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xmx512m -Xms512m}"
exec /opt/kafka/bin/kafka-run-class.sh kafka.Kafka "$@"
