#!/usr/bin/env bash
# pypaimon 2.1 reads global indexes paimon-rs built (issue 46): a copy of fixtures/global-index
# at its fourth snapshot (the 200 rows written before pypaimon built its indexes) gets a BTree
# index on `id` and a bitmap index on `name` from `paimon create-global-index`; then
# scripts/check-global-index-peer.py checks pypaimon's filtered plans use them (IndexedSplits
# with exactly the matching row ranges) and return the expected rows. Then `paimon
# drop-global-index` drops the bitmap index: pypaimon plans `name` filters without it (and
# still `id` filters with the BTree index), with the same rows; a rebuild restores it. The same
# again on a second copy through `paimon sql`'s `CALL sys.create_global_index(..)` /
# `CALL sys.drop_global_index(..)` (Java's Spark procedure and argument names).
#
# Uses the peers venv scripts/test-peers.sh makes (target/peers-venv; PEERS_VENV to choose),
# creating it the same way when absent. Exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
source "$ROOT/scripts/peers-venv.sh"
source "$ROOT/scripts/workspace-build.sh"
PY=$(peers_venv)
PAIMON=$(ws_paimon)

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# unindexed_copy WAREHOUSE: the fixture table as WAREHOUSE/db.db/t, back at snapshot 4 (no
# index yet); prints its directory.
unindexed_copy() {
  local t="$1/db.db/t"
  mkdir -p "$1/db.db"
  cp -r fixtures/global-index/db.db/t "$t"
  rm -f "$t"/snapshot/snapshot-{5,6,7} "$t"/index/*
  echo 4 >"$t/snapshot/LATEST"
  echo "$t"
}
T=$(unindexed_copy "$WORK/wh")

"$PAIMON" create-global-index "$T" --column id --type btree
"$PAIMON" create-global-index "$T" --column name --type bitmap
"$PY" scripts/check-global-index-peer.py "$WORK/wh"
"$PAIMON" drop-global-index "$T" --column name --type bitmap
"$PY" scripts/check-global-index-peer.py "$WORK/wh" --dropped name
"$PAIMON" create-global-index "$T" --column name --type bitmap
"$PY" scripts/check-global-index-peer.py "$WORK/wh"

# Through SQL: named and positional arguments.
unindexed_copy "$WORK/wh-sql" >/dev/null
"$PAIMON" sql "$WORK/wh-sql" "CALL sys.create_global_index(table => 'db.t', index_column => 'id', index_type => 'btree')"
"$PAIMON" sql "$WORK/wh-sql" "CALL sys.create_global_index('db.t', 'name', 'bitmap')"
"$PY" scripts/check-global-index-peer.py "$WORK/wh-sql"
"$PAIMON" sql "$WORK/wh-sql" "CALL sys.drop_global_index(table => 'db.t', index_column => 'name', index_type => 'bitmap')"
"$PY" scripts/check-global-index-peer.py "$WORK/wh-sql" --dropped name
