#!/usr/bin/env bash
# Compares the text, JSON and HTML reports of two builds of the analyzer on the same recordings, to show a change
# leaves the results alone: BEFORE and AFTER are classpaths (e.g. an old build's target/classes plus
# target/bench/cp.txt); the recordings default to /work/shared/fixtures/jfr/*.jfr. Prints one line per report
# that differs and the count; exit status 1 when any differs.
#   BEFORE=/tmp/old/analyzer/target/classes:$(cat analyzer/target/bench/cp.txt) \
#   AFTER=analyzer/target/classes:$(cat analyzer/target/bench/cp.txt) analyzer/bench/diff-reports.sh
set -euo pipefail
: "${BEFORE:?BEFORE: the classpath of the build to compare with}" "${AFTER:?AFTER: the classpath of the build under test}"
if [ $# -eq 0 ]; then set -- /work/shared/fixtures/jfr/*.jfr; fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
differ=0
for f in "$@"; do
  name="$(basename "$f" .jfr)"
  for side in before after; do
    cp="$BEFORE"; [ "$side" = after ] && cp="$AFTER"
    # The exit status is compared too: a recording rejected before must still be rejected.
    set +e
    java -Xmx1g -cp "$cp" io.stallscope.analyzer.cli.Main report "$f" --json "$out/$name.$side.json" --html "$out/$name.$side.html" \
      > "$out/$name.$side.txt" 2> "$out/$name.$side.err"
    echo "exit $?" >> "$out/$name.$side.txt"
    set -e
  done
  for kind in txt json html err; do
    if ! cmp -s "$out/$name.before.$kind" "$out/$name.after.$kind" 2>/dev/null; then
      [ -e "$out/$name.before.$kind" ] || [ -e "$out/$name.after.$kind" ] || continue
      echo "differs: $f ($kind)"
      diff "$out/$name.before.$kind" "$out/$name.after.$kind" | head -20 || true
      differ=$((differ + 1))
    fi
  done
done
echo "$differ report(s) differ over $# recording(s)"
[ "$differ" -eq 0 ]
