#!/usr/bin/env bash
# Makes the recording of issue 42's independent check: a plain JDK Flight Recorder recording (no async-profiler)
# of HandlerStormProgram, 48 threads named like request handlers appending to one file under one monitor
# (FileOutputStream.write inside it) and to an index under a ReentrantLock, recorded with the JDK's default.jfc
# plus jdk.JavaMonitorEnter, jdk.ThreadPark and jdk.FileWrite at threshold 0 and jdk.ExecutionSample every 1 ms.
# On the loaded 2-core machine of 2026-11-28, 60 s gave 12 MB: 591k file writes, 64k monitor enters, 10k parks (the
# check's 17 MB had 191k lock events, 660k I/O events); a faster or idler machine writes more.
#   SECONDS_TO_RECORD (60), HANDLERS (48), PAUSE_MICROS (6000, each handler's sleep between appends),
#   CRC_ROUNDS (32, the work under the lock per append: fewer, with PAUSE_MICROS=0, records faster),
#   OUT (analyzer/target/bench/jdk-storm-SECONDS.jfr). JAVA: the JDK that records (default: java on PATH).
# maxsize=0: the JDK's default for a recording to disk keeps only the last 250 MB. Never commit the file.
set -euo pipefail
module="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${SECONDS_TO_RECORD:-60}"
out="${OUT:-$module/target/bench/jdk-storm-$seconds.jfr}"
java="${JAVA:-java}"
jfr="$(dirname "$(readlink -f "$(command -v "$java")")")/jfr"
work="$module/target/bench/storm"
mkdir -p "$work" "$(dirname "$out")"
(cd "$module" && mvn -q -o test-compile)
# The recording JDK's own default.jfc, with the four settings of the check: what a user of that JDK would record.
"$jfr" configure --input default --output "$work/storm.jfc" \
  jdk.JavaMonitorEnter#threshold=0ms jdk.ThreadPark#threshold=0ms jdk.FileWrite#threshold=0ms \
  jdk.ExecutionSample#period=1ms > /dev/null
"$java" -XX:StartFlightRecording=settings="$work/storm.jfc",filename="$out",dumponexit=true,maxsize=0 \
  -cp "$module/target/test-classes" io.stallscope.analyzer.workload.HandlerStormProgram \
  "$seconds" "$work/log" "${HANDLERS:-48}" "${PAUSE_MICROS:-6000}" "${CRC_ROUNDS:-32}"
ls -l "$out"
"$jfr" summary "$out" | grep -E 'Duration|Chunks|jdk.(JavaMonitorEnter|ThreadPark|FileWrite|ExecutionSample) '
