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
# The database of the tables in play: v2x (pypaimon creates them), then ours2x (we do).
export V2X_DB=v2x
ours() {
    local r="$1" t
    "$PY" "$PEER" round "$WH" ours "$r" "$WORK/$V2X_DB-round$r" || return 1
    for t in "${TABLES[@]}"; do
        "$PAIMON" write "$WH/$V2X_DB.db/$t" --from "$WORK/$V2X_DB-round$r/$t.jsonl" || return 1
    done
}

check "pypaimon 2.1 creates the tables and commits round 0" \
    bash -c '"$1" "$2" create "$3" && "$1" "$2" round "$3" pypaimon 0 "$4/v2x-round0"' _ \
    "$PY" "$PEER" "$WH" "$WORK"
check "paimon write commits round 1 on pypaimon's tables" ours 1
check "paimon-rust 0.4 commits round 2 on our snapshots" \
    "$PY" "$PEER" round "$WH" rust 2 "$WORK/v2x-round2"
check "paimon write commits round 3 on paimon-rust's manifests and sidecars" ours 3

# Our reads; of the row-tracked tables with each row's `_ROW_ID`.
read_all() {
    local t select
    mkdir -p "$WORK/$V2X_DB-ours"
    for t in "${TABLES[@]}"; do
        select=()
        [[ $t == row_tracking || $t == sidecar ]] && select=(--select id,v,_ROW_ID)
        "$PAIMON" read "$WH/$V2X_DB.db/$t" "${select[@]}" --format jsonl \
            >"$WORK/$V2X_DB-ours/$t.jsonl" || return 1
    done
}
check "paimon read reads every table" read_all
"$PY" "$PEER" check "$WH" 4 "$WORK/v2x-ours" >"$WORK/check" 2>&1 ||
    echo "FAIL the check of the v2x tables exited non-zero" >>"$WORK/check"
tally_lines "$WORK/check"

# The same tables created by us (`paimon sql`), then written by us, pypaimon 2.1 and
# paimon-rust 0.4 in turns, compacted by us, and read by all three.
export V2X_DB=ours2x
create_ours() {
    local q
    "$PAIMON" sql "$WH" "CREATE DATABASE $V2X_DB" >/dev/null || return 1
    "$PY" "$PEER" ddl | while IFS= read -r q; do "$PAIMON" sql "$WH" "$q" >/dev/null || exit 1; done
}
check "paimon sql creates the tables" create_ours
check "paimon write commits round 0 on our new tables" ours 0
check "pypaimon 2.1 commits round 1 on our tables" \
    "$PY" "$PEER" round "$WH" pypaimon 1 "$WORK/ours2x-round1"
check "paimon-rust 0.4 commits round 2 on our tables" \
    "$PY" "$PEER" round "$WH" rust 2 "$WORK/ours2x-round2"
# Neither peer compacts after a write, and a deletion-vector table's level-0 rows stay unread
# until a compaction (pypaimon, paimon-rust and we all skip them): our full compaction of it,
# over the peers' files, comes before the reads. The row-tracked tables are compacted too:
# every row keeps the row id pypaimon read before (issue 45), for all three readers.
check "pypaimon 2.1 reads the row ids of the row-tracked tables before compaction" \
    "$PY" "$PEER" row_ids "$WH" "$WORK/ours2x-row-ids.json"
compact_ours() {
    local t
    for t in pk_dv row_tracking sidecar; do
        "$PAIMON" compact "$WH/ours2x.db/$t" --full || return 1
    done
}
check "paimon compact --full compacts the peers' rounds of pk_dv and the row-tracked tables" \
    compact_ours
check "paimon read reads every table we created" read_all
"$PY" "$PEER" check "$WH" 3 "$WORK/ours2x-ours" "$WORK/ours2x-row-ids.json" >"$WORK/check" 2>&1 ||
    echo "FAIL the check of the ours2x tables exited non-zero" >>"$WORK/check"
tally_lines "$WORK/check"

finish test-peers-2x
