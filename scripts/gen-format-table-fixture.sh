#!/usr/bin/env bash
# Records the format-table fixtures (fixtures/format-table/, issue 45): Parquet format tables
# written by other implementations, whose rows the acceptance tests keep.
#   pypaimon_parquet/  pypaimon 2.1's pure-Python FormatTable (interop/peers/format_table.py
#                      create: round 0's rows, partitioned by dt STRING and hr INT)
#   pypaimon_orc/      the same rows in an ORC format table (pyarrow's ORC writer)
#   java_parquet/      Java Paimon 1.4.2 (the oracle's `catalog-write --parts 2` into a format
#                      table of a filesystem catalog: rows (i, 'java-<i>', i % 2) for i in 0..6,
#                      partitioned by p INT)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source "$ROOT/scripts/peers-venv.sh"
PY=$(peers_venv)
OUT="$ROOT/fixtures/format-table"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

"$PY" interop/peers/format_table.py create "$WORK/pypaimon_parquet"
"$PY" interop/peers/format_table.py create "$WORK/pypaimon_orc" orc

mkdir -p "$WORK/wh/db.db/j/schema"
cat >"$WORK/wh/db.db/j/schema/schema-0" <<'JSON'
{
  "version" : 3,
  "id" : 0,
  "fields" : [ {
    "id" : 0,
    "name" : "id",
    "type" : "INT"
  }, {
    "id" : 1,
    "name" : "v",
    "type" : "STRING"
  }, {
    "id" : 2,
    "name" : "p",
    "type" : "INT"
  } ],
  "highestFieldId" : 2,
  "partitionKeys" : [ "p" ],
  "primaryKeys" : [ ],
  "options" : {
    "type" : "format-table",
    "file.format" : "parquet"
  },
  "timeMillis" : 1781088620905
}
JSON
scripts/java-oracle.sh catalog-write --catalog-option "warehouse=$WORK/wh" db.j --from 0 --to 6 --parts 2

rm -rf "$OUT"
mkdir -p "$OUT"
cp -r "$WORK/pypaimon_parquet" "$OUT/pypaimon_parquet"
cp -r "$WORK/pypaimon_orc" "$OUT/pypaimon_orc"
cp -r "$WORK/wh/db.db/j" "$OUT/java_parquet"
find "$OUT" -type f | sort
