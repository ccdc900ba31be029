#!/usr/bin/env bash
# JMH: the cost the agent adds to one FileRecords.append of a 1 KiB batch to a real file.
# Runs the benchmark plain and with the agent, alternating, ROUNDS times (default 3), and prints
# the median. Usage: agent/bench/jmh.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q -B -DskipTests package test-compile
mvn -q -B dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-classpath.txt
java -cp "target/test-classes:$(cat target/bench-classpath.txt)" \
  io.stallscope.agent.bench.AppendOverheadRun "$PWD/target/stallscope-agent.jar" "${1:-3}"
