#!/usr/bin/env bash
# Runs every fuzz target for a bounded time each. Usage: scripts/fuzz.sh [DURATION]
# (longer runs: scripts/fuzz.sh 10m).
#
# Go's fuzzing engine sometimes ends a timed run with a bare "context
# deadline exceeded" when a worker is slow to stop on a busy machine; that
# is not a finding (no failing input is written), so such a run is tried
# once more. A real crash writes its input under testdata/fuzz and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-20s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    for attempt in 1 2; do
      echo "fuzz $pkg $target ($time, attempt $attempt)"
      if out=$(go test -run='^$' -fuzz="^${target}\$" -fuzztime="$time" -parallel=1 "$pkg" 2>&1); then
        echo "$out" | tail -2
        break
      fi
      echo "$out" | tail -20
      if [ "$attempt" = 2 ] || grep -q "Failing input written" <<<"$out" || ! grep -q "context deadline exceeded" <<<"$out"; then
        exit 1
      fi
    done
  done
done
