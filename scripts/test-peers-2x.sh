#!/usr/bin/env bash
# Tables with the 2.x-era peers' defaults, written in turns on the same tables by pypaimon
# 2.1, paimon-rs and paimon-rust 0.4, and read by all three (issue 42;
# interop/peers/tables_2x.py): append (dynamic and fixed buckets), primary key, primary key
# with deletion vectors, row tracking, and row tracking with paimon-rust's manifest sidecars
# (`manifest.sidecar.enabled`: a sidecar per manifest, listed in the manifest list's
# `_EXTRA_FILES`, which our commits must carry).
#
#   round 0  pypaimon 2.1 creates the tables and commits rows;
#   round 1  `paimon write` commits rows on top;
#   round 2  paimon-rust 0.4's batch writer commits rows on top of ours;
#   round 3  `paimon write` again, on top of paimon-rust's manifests and sidecars;
#   then pypaimon, paimon-rust and `paimon read` each read every row of the four rounds
#   (primary-key tables: the latest value per key), and every sidecar paimon-rust wrote is
#   still listed in the latest snapshot's manifest lists.
#
# Uses the peers venv (scripts/peers-venv.sh) and the workspace build's paimon; prints pass/fail
# counts and exits non-zero on any failure.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export PYTHONDONTWRITEBYTECODE=1
START=$(date +%s)
source "$ROOT/scripts/test-lib.sh"
source "$ROOT/scripts/peers-venv.sh"
source "$ROOT/scripts/workspace-build.sh"
PY=$(peers_venv) || exit 1
[[ "${1:-}" == --prepare ]] && { echo "test-peers-2x: prepared"; exit 0; }
PAIMON=$(ws_paimon) || exit 1
PEER="$ROOT/interop/peers/tables_2x.py"
TABLES=(append append_fixed pk pk_dv row_tracking sidecar)

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
WH="$WORK/wh"
ours() {
    local r="$1" t
    "$PY" "$PEER" round "$WH" ours "$r" "$WORK/round$r" || return 1
    for t in "${TABLES[@]}"; do
        "$PAIMON" write "$WH/v2x.db/$t" --from "$WORK/round$r/$t.jsonl" || return 1
    done
}

check "pypaimon 2.1 creates the tables and commits round 0" \
    bash -c '"$1" "$2" create "$3" && "$1" "$2" round "$3" pypaimon 0 "$4/round0"' _ \
    "$PY" "$PEER" "$WH" "$WORK"
check "paimon write commits round 1 on pypaimon's tables" ours 1
check "paimon-rust 0.4 commits round 2 on our snapshots" \
    "$PY" "$PEER" round "$WH" rust 2 "$WORK/round2"
check "paimon write commits round 3 on paimon-rust's manifests and sidecars" ours 3

mkdir -p "$WORK/ours"
read_all() {
    local t
    for t in "${TABLES[@]}"; do
        "$PAIMON" read "$WH/v2x.db/$t" --format jsonl >"$WORK/ours/$t.jsonl" || return 1
    done
}
check "paimon read reads every table" read_all
if "$PY" "$PEER" check "$WH" 4 "$WORK/ours" >"$WORK/check" 2>&1; then :; fi
tally_lines "$WORK/check"

finish test-peers-2x
