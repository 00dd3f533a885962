#!/usr/bin/env bash
# A Parquet format table (`type = format-table`, issue 45) written and read in turns by
# pypaimon 2.1's pure-Python FormatTable and paimon-rs (interop/peers/format_table.py keeps the
# rows of each round):
#
#   pypaimon 2.1 creates the table (partitioned by dt STRING, hr INT) and writes round 0;
#   `paimon read` reads round 0; `paimon write` appends round 1 and pypaimon reads rounds 0+1;
#   `paimon read --filter` on partition columns reads only their partitions;
#   `paimon write --overwrite --partition dt=2024-01-01` replaces that partition by round 2,
#   read by both; pypaimon then appends round 1 again on our files, read by both.
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
[[ "${1:-}" == --prepare ]] && { echo "test-format-table-peers: prepared"; exit 0; }
PAIMON=$(ws_paimon) || exit 1
PEER="$ROOT/interop/peers/format_table.py"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
T="$WORK/t"

# ours_read OUT [ARGS...]: `paimon read` of the table as JSON lines into OUT.
ours_read() {
    local out=$1
    shift
    "$PAIMON" read "$T" --format jsonl "$@" >"$out"
}
# both_read EXPECT: pypaimon's and our reads of the table equal EXPECT's rows.
both_read() {
    ours_read "$WORK/ours.jsonl" || return 1
    "$PY" "$PEER" check "$T" "$1" "$WORK/ours.jsonl"
}

check "pypaimon 2.1 creates the format table and writes round 0" "$PY" "$PEER" create "$T"
check "paimon read reads pypaimon's round 0 (and pypaimon too)" both_read r0
"$PY" "$PEER" rows 1 "$WORK/r1.jsonl"
check "paimon write appends round 1" "$PAIMON" write "$T" --from "$WORK/r1.jsonl"
check "pypaimon and paimon read rounds 0 and 1" both_read r0+r1
pruned() {
    ours_read "$WORK/pruned.jsonl" --filter "dt = '2024-01-02'" || return 1
    "$PY" "$PEER" check "$T" r0+r1 >/dev/null || return 1
    "$PY" - "$WORK/pruned.jsonl" <<'PYEOF'
import json, sys
sys.path.insert(0, "interop/peers")
import format_table as ft
got = ft.normalized(json.loads(l) for l in open(sys.argv[1]) if l.strip())
want = ft.expected("r0+r1@dt=2024-01-02")
assert got == want, (got, want)
PYEOF
}
check "paimon read --filter on dt reads only dt=2024-01-02's rows" pruned
"$PY" "$PEER" rows 2 "$WORK/r2.jsonl"
check "paimon write --overwrite --partition dt=2024-01-01 writes round 2" \
    "$PAIMON" write "$T" --from "$WORK/r2.jsonl" --overwrite --partition dt=2024-01-01
check "pypaimon and paimon read the overwritten partition" both_read 'r0+r1-dt=2024-01-01+r2'
check "pypaimon 2.1 appends round 1 on our files" "$PY" "$PEER" write "$T" 1
check "pypaimon and paimon read it all" both_read 'r0+r1-dt=2024-01-01+r2+r1'

finish test-format-table-peers
