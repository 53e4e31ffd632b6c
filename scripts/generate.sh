#!/usr/bin/env bash
# Regenerates gen/ from proto/ with local plugins only (no network).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf gen
scripts/buf.sh generate
