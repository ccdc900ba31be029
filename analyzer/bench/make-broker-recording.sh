#!/usr/bin/env bash
# Makes a benchmark recording of a REAL Kafka broker under load, of at least MIN_MB (default 500) MB, the way
# the analyzer's users record one (make-big-recording.sh's contention storm is the worst case; this is the
# common case). Writes analyzer/target/bench/broker.jfr (and broker-base.jfr, the recording itself); never
# commit them.
#
# What runs (io.stallscope.it.bench.BrokerRecording, integration-tests test sources): a Kafka broker
# (KAFKA_VERSION, default 3.6.2; KRaft, Maven Central jars, 127.0.0.1 only) with the Stallscope agent
# (-javaagent, default options: stallscope.* JFR events from 1 ms) and async-profiler 4.2's library
# (-agentpath). Load: 6 producers (acks=all, idempotent, 400 x 1 KiB records/s each) on topic "orders"
# (4 partitions, 1 MiB segments: rolls every second or two), one consumer group member reading it. After
# WARMUP_SECONDS (15) the profiler starts in the broker (jcmd JVMTI.agent_load, as asprof does):
# event=wall,interval=1ms,jfrsync=<the JDK's profile.jfc with jdk.JavaMonitorEnter at 1 ms instead of
# 10 ms>, for SECONDS_TO_RECORD (60) s. Then the file's chunks are repeated with shifted start times
# (ChunkRepeater) until it is MIN_MB big, as a long recording with rotation would be.
#
# Simulated (LD_PRELOAD shim integration-tests/src/main/c/slowdisk.c; broker, locks and threads are real):
# every fsync/fdatasync of a file in an "orders" partition directory waits 20 ms first (before Kafka 3.7 the
# roll's producer-state snapshot is fsynced on the request handler under the partition lock), and every 0.5
# to 1.5 s the next write(2) to an active "orders" segment waits 25 ms first (inside the append, under the
# partition lock, while other request handlers queue for it). No read is slowed.
#
# BUILD_WRAP / RECORD_WRAP: command prefixes for the build-and-analyse steps and for the recording, e.g. on a
# shared machine BUILD_WRAP="flock -s /work/heavy.lock" RECORD_WRAP="flock -x /work/heavy.lock".
# MVN_ARGS: extra Maven arguments (e.g. -o).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
module="$root/analyzer"
its="$root/integration-tests"
out="$module/target/bench"
min_mb="${MIN_MB:-500}"
seconds="${SECONDS_TO_RECORD:-60}"
warmup="${WARMUP_SECONDS:-15}"
version="${KAFKA_VERSION:-3.6.2}"
build_wrap="${BUILD_WRAP:-}"
record_wrap="${RECORD_WRAP:-}"
mkdir -p "$out"
cd "$root"
# shellcheck disable=SC2086 # the wraps and MVN_ARGS are word lists
$build_wrap mvn -q ${MVN_ARGS:-} -pl agent,analyzer,integration-tests -am package -DskipTests
# shellcheck disable=SC2086
$build_wrap mvn -q ${MVN_ARGS:-} -pl analyzer,integration-tests dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench/cp.txt
acp="$module/target/test-classes:$module/target/classes:$(cat "$out/cp.txt")"
icp="$its/target/test-classes:$its/target/classes:$(cat "$its/target/bench/cp.txt")"
jar="$(tr ':' '\n' < "$out/cp.txt" | grep 'async-profiler-.*\.jar$' | head -1)"
(cd "$out" && unzip -o -q "$jar" linux-x64/libasyncProfiler.so)

# shellcheck disable=SC2086
$record_wrap java -cp "$icp" -Dstallscope.it.target="$its/target" -Dstallscope.agent.jar="$root/agent/target/stallscope-agent.jar" \
  io.stallscope.it.bench.BrokerRecording "$out/broker-base.jfr" "$out/linux-x64/libasyncProfiler.so" "$seconds" "$version" "$warmup"

# shellcheck disable=SC2086
$build_wrap java -cp "$acp" io.stallscope.analyzer.bench.ChunkRepeater "$out/broker-base.jfr" "$out/broker.jfr" $((min_mb * 1024 * 1024))
ls -l "$out/broker-base.jfr" "$out/broker.jfr"
# shellcheck disable=SC2086
$build_wrap "$module/bin/analyzer" report "$out/broker.jfr" --json "$out/broker.json" > "$out/broker-report.txt"
head -1 "$out/broker-report.txt"
if command -v jq > /dev/null; then
  jq -r '.files[0] | "chunks \(.chunks), \(.durationMs / 1000) s; events by type:", (.eventCounts | to_entries
    | sort_by(-.value) | .[] | "  \(.value)\t\(.key)")' "$out/broker.json"
  jq -r '"threads \(.threads | length), samples \([.threads[].samples] | add)"' "$out/broker.json"
fi
echo "report: $out/broker-report.txt, JSON: $out/broker.json"
