#!/usr/bin/env bash
# Regenerates fixtures/manifest-sidecar (see scripts/gen-sidecar-fixture.py) with paimon-rust
# 0.4 from the peers venv (scripts/peers-venv.sh; PEERS_PYTHON overrides).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/peers-venv.sh"
py="${PEERS_PYTHON:-$(peers_venv)}"
out="$root/fixtures/manifest-sidecar"
rm -rf "$out"
mkdir -p "$out"
"$py" "$root/scripts/gen-sidecar-fixture.py" "$out"
echo "wrote $out"
