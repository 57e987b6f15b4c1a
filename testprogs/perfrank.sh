#!/usr/bin/env bash
# perfrank.sh: the plain-profiler baseline for a test program. Records it with
# `perf record -F 1000` (Debian's linux-perf; not needed by the tests), then
# prints the rank of its root-cause function (from manifest.json) among all
# symbols by self time, as a plain profile orders them, and the top of the
# profile.
#
#   testprogs/perfrank.sh lru_scan            # buggy mode
#   testprogs/perfrank.sh lru_scan normal
#
# A clone (NAME.constprop.0) or part (NAME.cold) of the function counts as it.
set -euo pipefail
cd "$(dirname "$0")"
name=${1:?usage: perfrank.sh NAME [normal|buggy]}
mode=${2:-buggy}
command -v perf >/dev/null || { echo "perfrank.sh: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
root=$(python3 -c 'import json,sys; m=json.load(open("manifest.json")); print([p["root_cause_function"] for p in m["programs"] if p["name"]==sys.argv[1]][0])' "$name")
make -s "bin/$name"
data=$(mktemp)
trap 'rm -f "$data" "$data.old"' EXIT
perf record -q -F 1000 -o "$data" -- "./bin/$name" "$mode" >/dev/null
perf report -i "$data" --stdio --no-demangle --sort symbol 2>/dev/null | grep -v '^#' | grep -v '^$' >"$data.old"
rank=$(awk -v f="$root" '{ s=$3; if (s == f || index(s, f ".") == 1) { print NR; exit } }' "$data.old")
echo "$name $mode: root cause $root: plain-profile rank ${rank:-not ranked} of $(wc -l <"$data.old") symbols"
cut -c1-100 "$data.old" | head -8
