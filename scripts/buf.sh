#!/usr/bin/env bash
# Runs the pinned buf (tools/buf/go.mod) after copying the third-party protos
# it needs from the Go module cache into .proto-deps/. Usage: scripts/buf.sh lint
set -euo pipefail
cd "$(dirname "$0")/.."

deps=.proto-deps
if [ ! -f "$deps/google/rpc/status.proto" ] || [ ! -f "$deps/google/rpc/code.proto" ]; then
  gw=$(go mod download -json github.com/grpc-ecosystem/grpc-gateway@v1.16.0 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  src="$gw/third_party/googleapis/google"
  rm -rf "$deps"
  mkdir -p "$deps/google/api" "$deps/google/rpc"
  cp "$src/api/annotations.proto" "$src/api/http.proto" "$deps/google/api/"
  cp "$src/rpc/status.proto" "$src/rpc/code.proto" "$deps/google/rpc/"
  chmod -R u+w "$deps"
fi
exec go tool -modfile=tools/buf/go.mod buf "$@"
