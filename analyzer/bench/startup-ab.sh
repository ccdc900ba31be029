#!/usr/bin/env bash
# Start-up A/B of the analyzer through its launcher (issue 42): `analyzer --help` and `analyzer report FILE` for each
# FILE, wall time of RUNS alternated runs of each variant, medians and ranges. Variants: `off` (STALLSCOPE_CDS=off,
# the launcher without its class-data-sharing archive), `on` (the launcher as shipped, with the archive made by a
# first report run beforehand, in a private cache directory), and any VARIANTS="name:VAR=value VAR=value;..." more
# (LAUNCHER=path among them runs another launcher, e.g. a copy of an earlier commit's, with STALLSCOPE_ANALYZER_JAR).
# The first (archive-making) report runs' times are shown apart: what a user's first runs cost (on Java 25 two
# runs: one records the classes, the next makes the ahead-of-time cache).
#   flock -x /work/heavy.lock analyzer/bench/startup-ab.sh /work/shared/fixtures/jfr/async-profiler-2.8-wall.jfr \
#     /work/shared/fixtures/jfr/jdk21-default.jfr
# RUNS (10), LAUNCHER (analyzer/bin/analyzer), JAVA_HOME as for the launcher. Needs bash 5 (EPOCHREALTIME).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
launcher="${LAUNCHER:-$here/../bin/analyzer}"
runs="${RUNS:-10}"
cache="$(mktemp -d)"
trap 'rm -rf "$cache"' EXIT
export XDG_CACHE_HOME="$cache"

variants=("off:STALLSCOPE_CDS=off" "on:")
if [[ -n "${VARIANTS:-}" ]]; then
  IFS=';' read -r -a more <<< "$VARIANTS"
  variants+=("${more[@]}")
fi

# "wall cpu" seconds of one run (cpu: user + system, by /usr/bin/time when it is there, else 0); its output to $1.
# CPU time is shown too because this shared machine is often busy outside the lock, which stretches wall time only.
timed() {
  local out="$1"; shift
  local t0 t1 cpu=0
  if [[ -x /usr/bin/time ]]; then
    t0="$EPOCHREALTIME"
    /usr/bin/time -f "%U %S" -o "$out.time" "$@" > "$out" 2> "$out.err"
    t1="$EPOCHREALTIME"
    cpu="$(awk '{ printf "%.2f", $1 + $2 }' "$out.time")"
  else
    t0="$EPOCHREALTIME"
    "$@" > "$out" 2> "$out.err"
    t1="$EPOCHREALTIME"
  fi
  awk -v a="$t0" -v b="$t1" -v c="$cpu" 'BEGIN { printf "%.3f %s", b - a, c }'
}

run_variant() { # variant out args...; a LAUNCHER=path among its settings runs that launcher (another build's copy)
  local v="$1" out="$2"; shift 2
  local l="$launcher" envs=() e
  for e in ${v#*:}; do
    case "$e" in LAUNCHER=*) l="${e#LAUNCHER=}" ;; *) envs+=("$e") ;; esac
  done
  timed "$out" env "${envs[@]}" "$l" "$@"
}

median_range() { # values... -> "median min max"
  printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END {
    m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
    printf "%.3f %.3f %.3f %d", m, a[1], a[NR], NR }'
}

stats() { # name "wall cpu" pairs as words: wall1 cpu1 wall2 cpu2...
  local name="$1"; shift
  local walls=() cpus=()
  while (($#)); do walls+=("$1"); cpus+=("$2"); shift 2; done
  read -r wm wa wb n <<< "$(median_range "${walls[@]}")"
  read -r cm ca cb _ <<< "$(median_range "${cpus[@]}")"
  printf "  %-12s wall median %s s  range %s-%s s   cpu median %.2f s  range %.2f-%.2f s  (n=%d)\n" \
    "$name" "$wm" "$wa" "$wb" "$cm" "$ca" "$cb" "$n"
}

echo "startup-ab: $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg) java: ${JAVA_HOME:-$(command -v java)}"
first_input="${1:-}"
if [[ -n "$first_input" ]]; then
  t="$(timed "$cache/first.txt" "$launcher" report "$first_input")"
  echo "first report run (makes the archive): ${t% *} s wall, ${t#* } s cpu; archive: $(ls "$cache"/stallscope/ 2>/dev/null | tr '\n' ' ')"
  # On Java 25 the first run records, the second makes the cache from that.
  t="$(timed "$cache/first.txt" "$launcher" report "$first_input")"
  echo "second report run (makes Java 25's cache): ${t% *} s wall, ${t#* } s cpu; archive: $(ls "$cache"/stallscope/ 2>/dev/null | tr '\n' ' ')"
  # Every other variant's archive too (another launcher's may differ), so that no timed run makes one.
  for v in "${variants[@]:2}"; do
    for _ in 1 2; do run_variant "$v" "$cache/warm.out" report "$first_input" > /dev/null; done
  done
fi

cases=("--help")
for f in "$@"; do cases+=("report $f"); done
for c in "${cases[@]}"; do
  read -r -a args <<< "$c"
  declare -A times=()
  for ((r = 0; r < runs; r++)); do
    for v in "${variants[@]}"; do
      name="${v%%:*}"
      t="$(run_variant "$v" "$cache/$name.out" "${args[@]}")"
      times[$name]="${times[$name]:-} $t"
      if [[ -s "$cache/$name.out.err" ]]; then
        echo "  $name wrote to stderr: $(head -c 300 "$cache/$name.out.err")" >&2
      fi
    done
    for v in "${variants[@]}"; do
      if ! cmp -s "$cache/${variants[0]%%:*}.out" "$cache/${v%%:*}.out"; then
        echo "  ${v%%:*}: output differs from ${variants[0]%%:*}'s" >&2
        exit 1
      fi
    done
  done
  echo "analyzer $c"
  for v in "${variants[@]}"; do
    name="${v%%:*}"
    # shellcheck disable=SC2086 # a list of times
    stats "$name" ${times[$name]}
  done
  unset times
done
echo "end: $(date -u +%FT%TZ) load: $(cut -d' ' -f1-3 /proc/loadavg)"
