#!/usr/bin/env bash
# Times `analyzer report` against what an analyst would run instead, on the same FILEs, alternated, RUNS (default 2)
# rounds, each pass in its own JVM under /usr/bin/time (wall time with JVM start, peak RSS):
#   report         our report, through the launcher (its JVM options; JAVA_OPTS as set, none by default)
#   jmc            JMC's automated analysis: JfrHtmlRulesReport of org.openjdk.jmc:flightrecorder.rules.jdk
#                  (JMC_VERSION, default 9.1.0, from Maven Central; its default JVM options)
#   jfr-view       `jfr view contention-by-site` of a JDK 25 (JFR25: its jfr; default: found under /usr/lib/jvm)
#   recordingfile  a bare jdk.jfr.consumer.RecordingFile pass (-Xmx4g): the floor
# TOOLS (default all four: "report jmc jfr-view recordingfile") runs only those named: JMC takes minutes to fail
# at 2 GB. Prints one line per pass and the load average after each file. TIMEOUT (seconds, default 1800) ends a pass that
# runs longer: at 2 GB a tool may swap or run for an hour, and the row says so instead of hanging the bench. Build first: mvn -pl analyzer package, and
# target/bench/cp.txt (make-shape-recordings.sh or dependency:build-classpath writes it). On a shared machine run it
# under `flock -s /work/heavy.lock` and say the machine was shared.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${RUNS:-2}"
limit="${TIMEOUT:-1800}"
tools=" ${TOOLS:-report jmc jfr-view recordingfile} "
jmc_version="${JMC_VERSION:-9.1.0}"
[ $# -gt 0 ] || { echo "vs-peers: give the recordings to run on" >&2; exit 2; }
if [ ! -s "$module/target/stallscope-analyzer.jar" ] || [ ! -s "$module/target/bench/cp.txt" ]; then
  echo "vs-peers: build first: mvn -pl analyzer package dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench/cp.txt" >&2
  exit 2
fi
jfr25="${JFR25:-$(ls /usr/lib/jvm/*25*/bin/jfr 2>/dev/null | head -1)}"
[ -x "$jfr25" ] || { echo "vs-peers: no JDK 25 jfr found under /usr/lib/jvm; set JFR25" >&2; exit 2; }

# JMC's rules and their dependencies, resolved by Maven (fetched once, offline after) through a pom of their own.
jmc="$module/target/bench/jmc"
if [ ! -s "$jmc/cp-$jmc_version.txt" ]; then
  mkdir -p "$jmc"
  cat > "$jmc/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>bench</groupId><artifactId>jmc-rules</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.openjdk.jmc</groupId><artifactId>flightrecorder.rules.jdk</artifactId><version>$jmc_version</version></dependency>
  </dependencies>
</project>
POM
  (cd "$jmc" && mvn -B -ntp -q dependency:build-classpath -Dmdep.outputFile="cp-$jmc_version.txt" > /dev/null)
fi
bench_cp="$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench/cp.txt")"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# timed LABEL COMMAND...: one pass, its output dropped, its wall time and peak RSS printed (or its failure).
timed() {
  local label="$1"
  shift
  if /usr/bin/time -o "$out/time" -f "%e s, %M KB peak RSS" timeout -s KILL "$limit" "$@" > "$out/stdout" 2> "$out/stderr"; then
    printf '  %-14s %s\n' "$label" "$(cat "$out/time")"
  else
    # The exit status (137: killed at the TIMEOUT), the first error line (an OutOfMemoryError names itself there).
    printf '  %-14s failed: %s\n' "$label" "$(grep -m1 -E 'Error|Exception|rror:' "$out/stderr" || tail -1 "$out/stderr") ($(tail -1 "$out/time"); $(grep -m1 'exited\|signal' "$out/time" || echo 'no status'))"
  fi
}

echo "vs-peers: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); jmc $jmc_version; $("$jfr25" --version 2>&1 | head -1 || true)"
for f in "$@"; do
  echo "$(basename "$f"): $(stat -c %s "$f") B"
  for i in $(seq "$runs"); do
    [[ "$tools" != *" report "* ]] || timed report "$module/bin/analyzer" report "$f"
    [[ "$tools" != *" jmc "* ]] || timed jmc java -cp "$(cat "$jmc/cp-$jmc_version.txt")" org.openjdk.jmc.flightrecorder.rules.report.html.JfrHtmlRulesReport "$f" "$out/jmc.html"
    [[ "$tools" != *" jfr-view "* ]] || timed jfr-view "$jfr25" view contention-by-site "$f"
    [[ "$tools" != *" recordingfile "* ]] || timed recordingfile java -Xmx4g -cp "$bench_cp" io.stallscope.analyzer.bench.Bench recordingfile "$f"
  done
  echo "  load $(cut -d' ' -f1-3 /proc/loadavg)"
done
