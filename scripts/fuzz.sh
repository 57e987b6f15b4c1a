#!/usr/bin/env bash
# make fuzz: run every fuzz target of the module for FUZZTIME (default 2s)
# each. Seed corpora live in each package's testdata/fuzz/; a crasher found
# here is written there too and fails the run, so it becomes a regression
# test. Longer runs: FUZZTIME=5m make fuzz, or one target with
#   go test -run '^$' -fuzz '^FuzzReader$' ./runtime/proffile
set -euo pipefail
cd "$(dirname "$0")/.."
t=${FUZZTIME:-2s}
n=0
while IFS=: read -r file name; do
  pkg=$(dirname "$file")
  printf 'fuzz %-28s %s\n' "$name" "$pkg"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$t" "$pkg" > /tmp/vprof-fuzz.$$ 2>&1 || {
    cat /tmp/vprof-fuzz.$$; rm -f /tmp/vprof-fuzz.$$; echo "fuzz: $name in $pkg failed"; exit 1; }
  n=$((n+1))
done < <(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's|:func |:|' | sort)
rm -f /tmp/vprof-fuzz.$$
echo "fuzz: $n targets ran $t each, no failure"
