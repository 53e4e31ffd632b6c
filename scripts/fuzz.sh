#!/usr/bin/env bash
# Runs every fuzz target for a bounded time each. Usage: scripts/fuzz.sh [DURATION]
# (longer runs: scripts/fuzz.sh 10m).
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-20s}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "fuzz $pkg $target ($time)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$time" "$pkg"
  done
done
