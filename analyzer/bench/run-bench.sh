#!/usr/bin/env bash
# Times report against the bare parsers on one recording (default: target/bench/big.jfr from
# make-big-recording.sh). Each pass runs in its own JVM; report and read run with XMX (default -Xmx1g).
# Passes: report (all cores, phase times on stderr), report-1t (-Dstallscope.threads=1), read (our reader
# alone), jfrreader (async-profiler's one.jfr.JfrReader, every event), recordingfile (jdk.jfr.consumer).
# MODES="report read" limits the passes. CP replaces the classpath (e.g. a copy of the build, so that
# a build during the benchmark cannot change what it runs).
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
file="${1:-$module/target/bench/big.jfr}"
runs="${RUNS:-3}"
modes="${MODES:-report report-1t read jfrreader recordingfile}"
cp="${CP:-$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench/cp.txt")}"
ls -l "$file"
nproc
uptime
for mode in $modes; do
  opts="${XMX:--Xmx1g}"
  pass="$mode"
  case "$mode" in
    report) opts="$opts -Dstallscope.timing=true" ;;
    report-1t) opts="$opts -Dstallscope.timing=true -Dstallscope.threads=1"; pass=report ;;
    jfrreader|recordingfile) opts="-Xmx4g" ;;
  esac
  for i in $(seq "$runs"); do
    /usr/bin/time -f "  ($mode run $i: %e s elapsed, %U s user + %S s sys CPU, %M KB max RSS)" java $opts -cp "$cp" io.stallscope.analyzer.bench.Bench "$pass" "$file" \
      || echo "  ($mode run $i failed: exit $?)"
  done
done
uptime
