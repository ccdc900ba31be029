#!/usr/bin/env bash
# Times report against the bare parsers on one recording (default: target/bench/big.jfr from
# make-big-recording.sh). Each pass runs in its own JVM; report and read run with -Xmx1g.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
file="${1:-$module/target/bench/big.jfr}"
runs="${RUNS:-3}"
cp="$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench/cp.txt")"
ls -l "$file"
uptime
for mode in report read jfrreader recordingfile; do
  heap="-Xmx1g"
  [[ "$mode" == jfrreader || "$mode" == recordingfile ]] && heap="-Xmx4g"
  for i in $(seq "$runs"); do
    /usr/bin/time -f "  ($mode run $i: %e s elapsed, %U s user + %S s sys CPU, %M KB max RSS)" java $heap -cp "$cp" io.stallscope.analyzer.bench.Bench "$mode" "$file"
  done
done
