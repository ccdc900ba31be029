#!/usr/bin/env bash
# A/B of `report` on the same recordings in one script: two builds (or two sets of JVM options) alternating, RUNS
# (default 2) runs each, then one bare RecordingFile and one JfrReader pass (-Xmx4g) per file, each in its own JVM
# under /usr/bin/time (wall time with JVM start, CPU, max RSS). Run it under `flock -x /work/heavy.lock`: two
# benchmarks at once on two cores measure each other.
#   BEFORE, AFTER: classpaths (e.g. a copy of an old build's target/classes plus target/bench/cp.txt); AFTER
#   defaults to this module's build. BEFORE_OPTS, AFTER_OPTS: JVM options of each side (default -Xmx512m).
#   BEFORE=/tmp/old/classes:$(cat analyzer/target/bench/cp.txt) AFTER_OPTS="-Xmx512m -XX:+UseParallelGC" \
#     flock -x /work/heavy.lock analyzer/bench/ab-report.sh /work/tmp-big/shapes/*-500.jfr
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="$(cat "$module/target/bench/cp.txt")"
: "${BEFORE:?BEFORE: the classpath of the build to compare with}"
after="${AFTER:-$module/target/classes:$deps}"
bench="$module/target/test-classes"
runs="${RUNS:-2}"
[ $# -gt 0 ] || { echo "ab-report: give the recordings to run on" >&2; exit 2; }
timed() {
  local label="$1"; shift
  local t; t="$(mktemp)"
  if /usr/bin/time -o "$t" -f "%e s (%U u + %S s, %M KB)" "$@" >/dev/null 2>&1; then
    echo "$label $(cat "$t")"
  else
    echo "$label failed: $(tail -1 "$t")"
  fi
  rm -f "$t"
}
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
for f in "$@"; do
  echo "$(basename "$f") $(stat -c %s "$f") B"
  for i in $(seq "$runs"); do
    # shellcheck disable=SC2086 # the options are lists
    timed "  before" java ${BEFORE_OPTS:--Xmx512m} -cp "$bench:$BEFORE" io.stallscope.analyzer.bench.Bench report "$f"
    # shellcheck disable=SC2086
    timed "  after " java ${AFTER_OPTS:--Xmx512m} -cp "$bench:$after" io.stallscope.analyzer.bench.Bench report "$f"
  done
  timed "  RecordingFile" java -Xmx4g -cp "$bench:$after" io.stallscope.analyzer.bench.Bench recordingfile "$f"
  timed "  JfrReader" java -Xmx4g -cp "$bench:$after" io.stallscope.analyzer.bench.Bench jfrreader "$f"
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
done
