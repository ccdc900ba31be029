#!/usr/bin/env bash
# Times analyzer report against a bare RecordingFile pass on each FILE, RUNS (default 3) times alternated, each
# pass in its own JVM: report through the launcher (bin/analyzer, its JVM options, JAVA_OPTS=-Xmx512m), the bare pass
# with -Xmx4g. Then `analyzer --help` RUNS times: the JVM and the command line alone. Wall and user CPU per run;
# a pass that fails says so ("Command exited with non-zero status"). Run it under flock -x /work/heavy.lock when
# other work shares the machine.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-3}"
jar="$module/target/stallscope-analyzer.jar"
if [ ! -s "$jar" ] || [ ! -s "$module/target/bench/cp.txt" ]; then
  echo "vs-recordingfile: build first: mvn -pl analyzer package, then make-shape-recordings.sh (it writes target/bench/cp.txt)" >&2
  exit 2
fi
cp="$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench/cp.txt")"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# timed LABEL COMMAND...: one pass, its output dropped, its time printed.
timed() {
  local label="$1"
  shift
  /usr/bin/time -o "$log" -f "$label: %e s elapsed, %U s user" "$@" > /dev/null 2>&1 || true
  cat "$log"
}
for f in "$@"; do
  for i in $(seq "$runs"); do
    timed "$(basename "$f") report" env JAVA_OPTS=-Xmx512m "$module/bin/analyzer" report "$f"
    timed "$(basename "$f") recordingfile" java -Xmx4g -cp "$cp" io.stallscope.analyzer.bench.Bench recordingfile "$f"
  done
done
for i in $(seq "$runs"); do
  timed "--help" env JAVA_OPTS=-Xmx512m "$module/bin/analyzer" --help
done
