#!/bin/sh
# Builds demo.c with clang's XRay instrumentation, runs it with basic-mode
# logging, converts the log to Chrome trace-event JSON with llvm-xray and
# draws it with vprof timeline. Usage: xray-demo.sh VPROF OUTDIR
set -eu
vprof=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
for tool in clang llvm-xray; do
	command -v $tool >/dev/null || { echo "xray-demo: $tool not found (apt-get install clang llvm)" >&2; exit 2; }
done
mkdir -p "$out"
rm -f "$out"/xray-log.demo.*
clang -O1 -g -fxray-instrument -fxray-instruction-threshold=1 -pthread "$here/demo.c" -o "$out/demo"
# basic mode drops calls under 5 us unless told otherwise
(cd "$out" && XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=xray-log.demo." XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./demo >/dev/null 2>&1)
log=$(ls "$out"/xray-log.demo.* | head -n 1)
llvm-xray convert --symbolize --instr_map="$out/demo" --output-format=trace_event "$log" > "$out/demo.json"
"$vprof" timeline --stats --preset later -o "$out/xray-timeline.html" "$out/demo.json"
echo "xray-demo: page $out/xray-timeline.html"
