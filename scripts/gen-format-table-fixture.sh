#!/usr/bin/env bash
# Records the format-table fixtures (fixtures/format-table/, issue 45): Parquet format tables
# written by other implementations, whose rows the acceptance tests keep.
#   pypaimon_parquet/  pypaimon 2.1's pure-Python FormatTable (interop/peers/format_table.py
#                      create: round 0's rows, partitioned by dt STRING and hr INT)
#   pypaimon_orc/      the same rows in an ORC format table (pyarrow's ORC writer)
#   java_parquet/      Java Paimon 1.4.2 (the oracle's `catalog-write --parts 2` into a format
#   java_csv/          table of a filesystem catalog: rows (i, 'java-<i>', i % 2) for i in 0..6,
#   java_json/         partitioned by p INT), in Parquet, CSV and JSON files
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

# java_FORMAT: Java 1.4.2 writes rows into a format table of FORMAT with our schema-0.
java_table() {
    local fmt=$1 dir="$WORK/wh/db.db/$1"
    mkdir -p "$dir/schema"
    cat >"$dir/schema/schema-0" <<JSON
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
    "file.format" : "$fmt"
  },
  "timeMillis" : 1781088620905
}
JSON
    scripts/java-oracle.sh catalog-write --catalog-option "warehouse=$WORK/wh" "db.$fmt" \
        --from 0 --to 6 --parts 2
}
java_table parquet
java_table csv
java_table json

rm -rf "$OUT"
mkdir -p "$OUT"
cp -r "$WORK/pypaimon_parquet" "$OUT/pypaimon_parquet"
cp -r "$WORK/pypaimon_orc" "$OUT/pypaimon_orc"
for fmt in parquet csv json; do cp -r "$WORK/wh/db.db/$fmt" "$OUT/java_$fmt"; done
find "$OUT" -type f | sort
