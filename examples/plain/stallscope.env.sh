# Stallscope for a plain Kafka install (kafka-server-start.sh): source this before starting the broker,
#   . /opt/stallscope/stallscope.env.sh && bin/kafka-server-start.sh config/server.properties
# or copy the export into the script or environment file that starts your broker.
#
# Kafka's scripts pass KAFKA_OPTS to every JVM they start, the command-line tools included; the agent
# stays silent in all of them except the broker (its activate.main option), so this is safe to export
# in a shell you also run kafka-topics.sh from.
#
# prometheus=127.0.0.1:9405 serves /metrics on loopback only (a bare port does the same). Name another
# address only if Prometheus scrapes from elsewhere, and firewall it: the endpoint has no authentication.
#
# The jar's directory may be given as STALLSCOPE_HOME. (Other STALLSCOPE_* variables in the broker's
# environment are read by the agent as its options, e.g. STALLSCOPE_SLOW_THRESHOLD=50ms.)
stallscope_jar="${STALLSCOPE_HOME:-/opt/stallscope}/stallscope-agent.jar"
case " ${KAFKA_OPTS:-} " in
  *" -javaagent:${stallscope_jar}"[=\ ]*) ;;  # already there: sourcing twice adds nothing
  *) export KAFKA_OPTS="${KAFKA_OPTS:+$KAFKA_OPTS }-javaagent:${stallscope_jar}=prometheus=127.0.0.1:9405" ;;
esac
unset stallscope_jar
