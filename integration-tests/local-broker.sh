#!/bin/sh
# Starts a real Kafka broker from the shell with the integration-tests harness and keeps it
# running until this script is stopped (Ctrl-C / SIGTERM stop the broker gracefully).
#   integration-tests/local-broker.sh start --version 3.9.2 [--javaagent PATH=opts] [--workdir DIR] [--prop k=v] [--ssl]
#   integration-tests/local-broker.sh classpath --version 4.4.0
# Prints bootstrap.servers=..., pid=..., log=..., workdir=..., then "ready".
# Builds the module (and its runtime classpath file) first if needed; the parent pom must be
# installed or the reactor buildable (cd to the repository root and run mvn -N install once).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cpfile="$here/target/runtime-classpath.txt"
if [ ! -f "$cpfile" ] || [ ! -d "$here/target/classes" ]; then
  (cd "$root" && mvn -q -B -pl integration-tests package -DskipTests) >&2
fi
java_bin=${JAVA_HOME:+$JAVA_HOME/bin/}java
exec "$java_bin" -Dstallscope.it.target="$here/target" -cp "$here/target/classes:$(cat "$cpfile")" \
  io.stallscope.it.broker.LocalBrokerMain "$@"
