#!/usr/bin/env bash
# Cross-partition upsert with paimon-rust 0.4 (issue 45): paimon-rust's batch writer writes a
# dynamic-bucket table whose primary key lacks the partition column (interop/peers/
# cross_partition.py: two commits, key 2 moving from dt=a to dt=b); `paimon write` then moves
# keys between partitions again (bootstrapping its key index from paimon-rust's files); Java
# 1.4.2 (scripts/java-oracle.sh dump), paimon-rust 0.4 and paimon-rs each read every key once,
# in its latest partition, with the values kept here.
#
# Uses the peers venv of scripts/test-peers.sh (default target/peers-venv; PEERS_VENV to
# choose), installing pypaimon 2.1.0 and pypaimon-rust 0.4.0 from PyPI into it when missing.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
source "$ROOT/scripts/peers-venv.sh"
source "$ROOT/scripts/workspace-build.sh"
export PYTHONDONTWRITEBYTECODE=1
PY=$(peers_venv)
PEER="$ROOT/interop/peers/cross_partition.py"

PAIMON=$(ws_paimon)

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
T="$WORK/wh/db.db/t"

"$PY" "$PEER" write "$WORK/wh"
# paimon-rust's rows: 1 in a, 2 moved to b, 3 in b.
printf '%s\n' '{"dt": "a", "id": 1, "v": "r1"}' '{"dt": "b", "id": 2, "v": "r2b"}' \
    '{"dt": "b", "id": 3, "v": "r3"}' >"$WORK/want0"
"$PY" "$PEER" read "$WORK/wh" >"$WORK/rust0"
diff -u "$WORK/want0" "$WORK/rust0"

# Ours: 1 moves to b, 2 back to a, 3 is updated in b, 4 is new in c.
printf 'id,v,dt\n1,r1x,b\n2,r2y,a\n3,r3y,b\n4,r4,c\n' >"$WORK/ours.csv"
"$PAIMON" write "$T" --from "$WORK/ours.csv" >/dev/null
printf '%s\n' '{"dt": "a", "id": 2, "v": "r2y"}' '{"dt": "b", "id": 1, "v": "r1x"}' \
    '{"dt": "b", "id": 3, "v": "r3y"}' '{"dt": "c", "id": 4, "v": "r4"}' | sort >"$WORK/want"

canon() { "$PY" -c 'import json,sys; print("\n".join(sorted(json.dumps(json.loads(l), sort_keys=True) for l in sys.stdin if l.strip())))'; }
scripts/java-oracle.sh dump "$T" --sort | canon >"$WORK/java"
diff -u "$WORK/want" "$WORK/java"
"$PY" "$PEER" read "$WORK/wh" | canon >"$WORK/rust"
diff -u "$WORK/want" "$WORK/rust"
"$PAIMON" read "$T" --format jsonl | canon >"$WORK/ours"
diff -u "$WORK/want" "$WORK/ours"
echo "cross-partition peers: Java 1.4.2, paimon-rust 0.4 and paimon-rs read each key once"
