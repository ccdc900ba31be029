#!/usr/bin/env bash
# Makes one recording per shape of issue 19, each of at least SIZE_MB (default 500) MB, into OUT (default
# /work/tmp-big, else analyzer/target/bench/shapes): real async-profiler 4.2 output of BusyProgram (threads named
# like a broker's, a contention storm on four monitors), recorded for SECONDS (default 20) each, then repeated
# with ChunkRepeater. Never commit the files; delete them after the benchmark.
#   sample-heavy   wall samples at 1 ms, 200 threads, chunks one after the other
#   sequential     wall + lock events, chunks one after the other
#   overlapping    wall + lock events, each copy starting 1/8 of the span after the last (time ranges overlap)
#   lock-heavy     lock events only (every contended monitor enter, lock=0), 200 threads
#   many-threads   wall samples, 1000 threads (100 busy)
# SHAPES limits the shapes made.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$( [ -d /work/tmp-big ] && echo /work/tmp-big || echo "$module/target/bench/shapes")}"
size_mb="${SIZE_MB:-500}"
seconds="${SECONDS_TO_RECORD:-20}"
shapes="${SHAPES:-sample-heavy sequential overlapping lock-heavy many-threads}"
mkdir -p "$out" "$module/target/bench"
(cd "$module" && mvn -q -o test-compile dependency:build-classpath -Dmdep.outputFile="$module/target/bench/cp.txt" -Dmdep.includeScope=test)
cp="$module/target/test-classes:$module/target/classes:$(cat "$module/target/bench/cp.txt")"
jar="$(tr ':' '\n' < "$module/target/bench/cp.txt" | grep 'async-profiler-.*\.jar$' | head -1)"
(cd "$module/target/bench" && unzip -o -q "$jar" linux-x64/libasyncProfiler.so)
lib="$module/target/bench/linux-x64/libasyncProfiler.so"

# base NAME PROFILER_OPTIONS THREADS [BUSY]: one real recording, the unit the big files repeat.
base() {
  [ -s "$out/base-$1.jfr" ] && return
  java -agentpath:"$lib=start,$2,jfr,file=$out/base-$1.jfr" -cp "$cp" \
    io.stallscope.analyzer.workload.BusyProgram "$3" "$seconds" ${4:-}
}
repeat() { java -cp "$cp" io.stallscope.analyzer.bench.ChunkRepeater "$out/base-$1.jfr" "$out/$2.jfr" $((size_mb * 1024 * 1024)) "${3:-1}"; }

for shape in $shapes; do
  case "$shape" in
    sample-heavy) base wall "event=wall,interval=1ms" 200; repeat wall "$shape-$size_mb" ;;
    sequential) base wall-lock "event=wall,interval=1ms,lock=0" 200; repeat wall-lock "$shape-$size_mb" ;;
    overlapping) base wall-lock "event=wall,interval=1ms,lock=0" 200; repeat wall-lock "$shape-$size_mb" 0.125 ;;
    lock-heavy) base lock "event=lock,lock=0" 200; repeat lock "$shape-$size_mb" ;;
    many-threads) base threads "event=wall,interval=1ms" 1000 100; repeat threads "$shape-$size_mb" ;;
    *) echo "make-shape-recordings: unknown shape $shape" >&2; exit 2 ;;
  esac
done
ls -l "$out"
