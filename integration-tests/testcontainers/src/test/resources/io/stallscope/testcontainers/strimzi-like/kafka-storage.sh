#!/bin/bash
# Stands in for Kafka's bin/kafka-storage.sh in the Strimzi-like test image: the storage tool through
# kafka-run-class.sh (Strimzi's test container formats its log dir with it before the start).
export KAFKA_LOG4J_OPTS="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties}"
exec /opt/kafka/bin/kafka-run-class.sh kafka.tools.StorageTool "$@"
