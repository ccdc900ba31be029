# Stallscope for a plain Kafka install (kafka-server-start.sh): source this before starting the broker,
#   . /opt/stallscope/stallscope.env.sh && bin/kafka-server-start.sh config/server.properties
# or copy the export into the script or environment file that starts your broker.
#
# Kafka's scripts pass KAFKA_OPTS to every JVM they start, the command-line tools included; the agent
# stays silent in all of them except the broker (its activate.main option), so this is safe to export
# in a shell you also run kafka-topics.sh from.
#
# prometheus=127.0.0.1:9404 serves /metrics on loopback only (a bare port does the same). Name another
# address only if Prometheus scrapes from elsewhere, and firewall it: the endpoint has no authentication.
STALLSCOPE_JAR="${STALLSCOPE_JAR:-/opt/stallscope/stallscope-agent.jar}"
export KAFKA_OPTS="${KAFKA_OPTS:+$KAFKA_OPTS }-javaagent:${STALLSCOPE_JAR}=prometheus=127.0.0.1:9404"
