#!/usr/bin/env bash
# JMH A/B of the agent's per-call cost (HookCostBenchmark enterExit and the nanoTime baseline) between two
# checkouts, alternating, ROUNDS rounds (default 2), so that both sides see the same machine. A benchmark, not a
# test: run it on a quiet machine. Usage: agent/bench/hook-cost-ab.sh CHECKOUT_A CHECKOUT_B [ROUNDS]
# (checkouts: e.g. `git worktree add /tmp/before <commit>`; each is built here, offline if it can be).
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 CHECKOUT_A CHECKOUT_B [ROUNDS]" >&2; exit 2; }
for dir in "$1" "$2"; do
  (cd "$dir/agent" && mvn -q -B -ntp -DskipTests package test-compile \
     && mvn -q -B -ntp dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-classpath.txt)
done
for ((round = 1; round <= ${3:-2}; round++)); do
  for side in "A:$1" "B:$2"; do
    dir=${side#*:}
    echo "== round $round ${side%%:*} $dir $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
    (cd "$dir/agent" && java -cp "target/test-classes:target/classes:$(cat target/bench-classpath.txt)" \
       org.openjdk.jmh.Main 'HookCostBenchmark.(enterExit|baseline)$' -f 3 -wi 3 -i 5 -w 1 -r 1 2>&1 | grep -E '^HookCost')
  done
done
