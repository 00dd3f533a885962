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
# Then an ORC table the same way (pypaimon writes round 0, we append round 1, both read), and
# CSV (with `csv.include-header`, which pypaimon's pyarrow reader assumes) and JSON tables whose
# schema pypaimon creates and whose rows we write (rounds 1 and 3: strings CSV quotes), read
# by both: pypaimon 2.1's own CSV and JSON files are not Java's (partition columns inside,
# per-file type inference), so it writes none here.
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

# The other formats, in their own tables.
"$PY" "$PEER" rows 3 "$WORK/r3.jsonl"
T="$WORK/orc"
check "pypaimon 2.1 creates an ORC format table and writes round 0" "$PY" "$PEER" create "$T" orc
check "paimon write appends round 1 to the ORC table" "$PAIMON" write "$T" --from "$WORK/r1.jsonl"
check "pypaimon and paimon read the ORC table's rounds 0 and 1" both_read r0+r1
for fmt in csv json; do
    T="$WORK/$fmt"
    extra=()
    [[ $fmt == csv ]] && extra=(csv.include-header=true)
    check "pypaimon 2.1 creates a $fmt format table" "$PY" "$PEER" schema "$T" "$fmt" "${extra[@]}"
    check "paimon write writes rounds 1 and 3 to the $fmt table" \
        bash -c '"$1" write "$2" --from "$3" && "$1" write "$2" --from "$4"' _ \
        "$PAIMON" "$T" "$WORK/r1.jsonl" "$WORK/r3.jsonl"
    check "pypaimon and paimon read the $fmt table's rounds 1 and 3" both_read r1+r3
done

finish test-format-table-peers
