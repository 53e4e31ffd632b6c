#!/usr/bin/env bash
# buf breaking against a git revision (default HEAD~1). The revision's tree
# lacks the git-ignored .proto-deps/, so it is checked out into a temporary
# folder, given the same third-party protos, and built into an image first.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD~1}
if ! git cat-file -e "$rev:buf.yaml" 2>/dev/null; then
  echo "buf breaking: $rev has no buf.yaml; nothing to compare"
  exit 0
fi
scripts/buf.sh --version >/dev/null # fills .proto-deps/
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git archive "$rev" buf.yaml proto | tar -x -C "$tmp"
cp -r .proto-deps "$tmp/"
scripts/buf.sh build "$tmp" -o "$tmp/against.binpb"
scripts/buf.sh build -o "$tmp/input.binpb"
scripts/buf.sh breaking "$tmp/input.binpb" --against "$tmp/against.binpb"
