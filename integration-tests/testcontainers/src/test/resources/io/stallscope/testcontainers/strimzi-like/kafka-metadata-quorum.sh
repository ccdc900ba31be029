#!/bin/bash
# Stands in for Kafka's bin/kafka-metadata-quorum.sh in the Strimzi-like test image: StrimziKafkaCluster asks
# each broker "describe --status" until it names a LeaderId.
export KAFKA_LOG4J_OPTS="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties}"
exec /opt/kafka/bin/kafka-run-class.sh org.apache.kafka.tools.MetadataQuorumCommand "$@"
