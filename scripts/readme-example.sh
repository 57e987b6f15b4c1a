#!/usr/bin/env bash
# The README's worked example: three normal and three slow runs of
# recovery_budget (MariaDB MDEV-21826), recorded whole-program as the README
# says, and the report. Run it after a change to the report and paste its output into the
# README's "Worked example" section: ./scripts/readme-example.sh
set -euo pipefail
cd "$(dirname "$0")/.."
make -s build testprogs >/dev/null
VPROF=bin/vprof
OUT=${OUT:-out/readme}
mkdir -p "$OUT"
cd "$OUT"
V=../../$VPROF
P=../../testprogs/bin/recovery_budget
for i in 1 2 3; do
  $V record -q -o normal$i.data -- $P normal >/dev/null
  $V record -q -o slow$i.data -- $P buggy >/dev/null
done
echo '$ vprof report --top 8 --normal normal1.data,normal2.data,normal3.data --buggy slow1.data,slow2.data,slow3.data'
$V report --top 8 --normal normal1.data,normal2.data,normal3.data --buggy slow1.data,slow2.data,slow3.data 2>&1
