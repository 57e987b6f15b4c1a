#!/usr/bin/env bash
# make demo: vprof's main job on a bundled test program.
#
# recovery_budget reproduces MariaDB MDEV-21826: crash recovery whose memory
# budget is computed as zero, so it re-reads the same log segment over and
# over. A plain profiler blames the checksum and page-apply functions; vprof
# compares normal and slow runs and ranks the function whose values went
# wrong.
#
# The program is laid out like MariaDB (testprogs/recovery_budget/log0recv.c,
# buf0buf.c, ...). As a user who does not know where the bug is, the demo
# records the whole program: 3 normal and 3 slow runs, every source file's
# variables sampled. It prints what the program reproduces (the root cause,
# its line and the bug pattern, from testprogs/manifest.json), vprof's table,
# and whether vprof found them. PROG=NAME runs another test program;
# COMPONENT=PATH narrows the analysis to the variables of one file or
# directory (vprof report --component), as the thesis' evaluation did with
# the file that holds the root cause; RUNS=N records N runs of each kind.
set -euo pipefail
cd "$(dirname "$0")/.."
VPROF=${VPROF:-bin/vprof}
GO=${GO:-go}
PROG=${PROG:-recovery_budget}
RUNS=${RUNS:-3}
COMPONENT=${COMPONENT:-}
BIN=testprogs/bin/$PROG
OUT=${OUT:-out/demo}
mkdir -p "$OUT"

# What the program reproduces, and later the verdict, come from the
# manifest through the scoreboard's own code (vprof-eval -expected).
eval_bin=$OUT/vprof-eval
"$GO" build -o "$eval_bin" ./cmd/vprof-eval
"$eval_bin" -expected "$PROG" >/dev/null # fails on a program the manifest lacks

comp=()
[ -z "$COMPONENT" ] || comp=(--component "$COMPONENT")

# Bold headings on a terminal only, and not under NO_COLOR (no-color.org):
# make demo > demo.log stays plain text.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
  step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  step() { printf '\n== %s\n' "$*"; }
fi

step "1. Schema: the variables vprof will sample in $BIN (every file)"
"$VPROF" schema "$BIN"

step "2. Record $RUNS normal and $RUNS slow (buggy) runs of the whole program"
normal=() buggy=()
for i in $(seq 1 "$RUNS"); do
  # Interleaved, so that a change in the machine's load hits both kinds.
  for mode in normal buggy; do
    f=$OUT/$mode-$i.data
    echo "vprof record -o $f -- $BIN $mode"
    "$VPROF" record -o "$f" -- "$BIN" "$mode" >/dev/null 2>"$OUT/record.log" ||
      { cat "$OUT/record.log" >&2; exit 1; }
    if [ "$mode" = normal ]; then normal+=("$f"); else buggy+=("$f"); fi
  done
done
cat "$OUT/record.log" # what recording the last slow run cost
ns=$(IFS=,; echo "${normal[*]}")
bs=$(IFS=,; echo "${buggy[*]}")

step "3. What the program reproduces (testprogs/manifest.json)"
"$eval_bin" -expected "$PROG"

step "4. What a plain profiler says (self time in the first slow run)"
"$VPROF" flat "${buggy[0]}" >"$OUT/flat.txt"
head -15 "$OUT/flat.txt"

step "5. vprof's ranked root-cause table${COMPONENT:+ (variables of $COMPONENT)}"
"$VPROF" report --top 10 "${comp[@]}" --normal "$ns" --buggy "$bs"
"$VPROF" report --format json --top 100000 "${comp[@]}" --normal "$ns" --buggy "$bs" >"$OUT/report.json" 2>/dev/null
"$eval_bin" -expected "$PROG" -verdict "$OUT/report.json"

step "6. Timelines of the first normal and the first slow run, side by side"
"$VPROF" timeline --compare "${normal[0]}" --report -o "$OUT/timeline.html" "${buggy[0]}"
echo "open $OUT/timeline.html in a browser"
