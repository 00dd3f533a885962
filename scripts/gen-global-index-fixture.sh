#!/usr/bin/env bash
# Regenerates fixtures/global-index (see scripts/gen-global-index-fixture.py) with pypaimon 2.1
# from the peers venv (scripts/test-peers.sh makes it; PEERS_PYTHON overrides).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${PEERS_PYTHON:-$root/target/peers-venv/bin/python}"
out="$root/fixtures/global-index"
rm -rf "$out"
mkdir -p "$out"
"$py" "$root/scripts/gen-global-index-fixture.py" "$out"
# Only the latest snapshot is read by the tests; the files stay as pypaimon wrote them.
echo "wrote $out"
