#!/usr/bin/env bash
# make demo: vprof's main job on a bundled test program.
#
# recovery_budget reproduces MariaDB MDEV-21826: crash recovery whose memory
# budget is computed as zero, so it re-reads the same log segment over and
# over. A plain profiler blames the checksum and page-apply functions; vprof
# compares a normal and a slow run and ranks the function whose values went
# wrong.
#
# The program is laid out like MariaDB (testprogs/recovery_budget/log0recv.c,
# buf0buf.c, ...). As in the thesis' evaluation, the user names the file
# that holds the code under suspicion, crash recovery's log0recv.c, and
# vprof samples the variables of that file only (--component); every
# function is still ranked. PROG=NAME runs another test program, with the
# component the manifest gives it; COMPONENT= (empty) samples every file.
set -euo pipefail
cd "$(dirname "$0")/.."
VPROF=${VPROF:-bin/vprof}
PROG=${PROG:-recovery_budget}
BIN=testprogs/bin/$PROG
OUT=${OUT:-out/demo}
mkdir -p "$OUT"

if [ -z "${COMPONENT+set}" ]; then
  COMPONENT=testprogs/$(sed -n "/\"name\": \"$PROG\"/,/\"component\"/s/.*\"component\": \"\(.*\)\".*/\1/p" testprogs/manifest.json)
  [ "$COMPONENT" != testprogs/ ] || { echo "demo.sh: no program $PROG with a component in testprogs/manifest.json" >&2; exit 1; }
fi
comp=()
[ -z "$COMPONENT" ] || comp=(--component "$COMPONENT")

# Bold headings on a terminal only, and not under NO_COLOR (no-color.org):
# make demo > demo.log stays plain text.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ "${TERM:-dumb}" != dumb ]; then
  step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  step() { printf '\n== %s\n' "$*"; }
fi

step "1. Schema: the variables vprof will sample in $BIN (${COMPONENT:-every file})"
"$VPROF" schema "${comp[@]}" "$BIN"

if "$VPROF" record --help >/dev/null 2>&1; then
  step "2. Record a normal and a slow (buggy) run"
  "$VPROF" record "${comp[@]}" -o "$OUT/normal.data" -- "$BIN" normal
  "$VPROF" record "${comp[@]}" -o "$OUT/buggy.data" -- "$BIN" buggy
  "$VPROF" info "$OUT/buggy.data"
fi

if "$VPROF" report --help >/dev/null 2>&1 && [ -f "$OUT/buggy.data" ]; then
  step "3. What a plain profiler says (self time in the slow run)"
  "$VPROF" flat "$OUT/buggy.data" | head -15
  step "4. vprof's ranked root-cause table"
  "$VPROF" report --top 10 "$OUT/normal.data" "$OUT/buggy.data"
fi

if "$VPROF" timeline --help >/dev/null 2>&1 && [ -f "$OUT/buggy.data" ]; then
  step "5. Timelines of both runs, side by side"
  "$VPROF" timeline --compare "$OUT/normal.data" --report -o "$OUT/timeline.html" "$OUT/buggy.data"
  echo "open $OUT/timeline.html in a browser"
fi
