#!/usr/bin/env bash
# Makes a benchmark recording of at least MIN_MB (default 500) MB: async-profiler 4.x wall mode on a busy
# 200-thread program for SECONDS (default 40), then the chunk repeated with shifted start times (ChunkRepeater)
# until the file is big enough. Writes analyzer/target/bench/big.jfr; never commit it.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$module/target/bench"
mkdir -p "$out"
min_mb="${MIN_MB:-500}"
seconds="${SECONDS_TO_RECORD:-40}"
(cd "$module" && mvn -q test-compile dependency:build-classpath -Dmdep.outputFile="$out/cp.txt" -Dmdep.includeScope=test)
cp="$module/target/test-classes:$module/target/classes:$(cat "$out/cp.txt")"
jar="$(tr ':' '\n' < "$out/cp.txt" | grep 'async-profiler-.*\.jar$' | head -1)"
(cd "$out" && unzip -o -q "$jar" linux-x64/libasyncProfiler.so)
java -agentpath:"$out/linux-x64/libasyncProfiler.so=start,event=wall,interval=1ms,jfr,file=$out/base.jfr" \
  -cp "$cp" io.stallscope.analyzer.workload.BusyProgram 200 "$seconds"
java -cp "$cp" io.stallscope.analyzer.bench.ChunkRepeater "$out/base.jfr" "$out/big.jfr" $((min_mb * 1024 * 1024))
ls -l "$out/base.jfr" "$out/big.jfr"
