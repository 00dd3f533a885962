#!/usr/bin/env bash
# Records Java 1.4.2's predicate JSON (`java-oracle.sh predicate-json`, Jackson over
# LeafPredicate / CompoundPredicate) of filters over fixtures/warehouse/append.db/all_types_parquet,
# for paimon-spec's predicate_json golden test:
#   fixtures/predicate-json/all_types_parquet.jsonl   {"filter", "json", "read_back"} per line
# `read_back` is whether Java reads its own JSON back (it does not for temporal and decimal
# literals). Rerun after changing the filters below. Usage: scripts/gen-predicate-json.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE="$ROOT/scripts/java-oracle.sh"
TABLE="$ROOT/fixtures/warehouse/append.db/all_types_parquet"
OUT="$ROOT/fixtures/predicate-json"
mkdir -p "$OUT"

FILTERS=(
  "c_int = 5"
  "c_string = 'a''b' OR c_bigint IN (1, 2, NULL)"
  "NOT (c_int < 3 AND c_double >= 1.5)"
  "NOT c_string IN ('a')"
  "c_bool = TRUE AND c_tinyint <> -3 AND c_smallint IS NULL"
  "c_varchar NOT IN ('x', 'y')"
  "c_char IS NOT NULL"
  "c_int BETWEEN 1 AND 4"
  "c_float > 0.1"
  "c_double = 1e300"
  "c_date = '2024-01-31'"
  "c_date < '1969-12-31'"
  "c_dec_5_2 = -0.5"
  "c_dec_18_4 = 12.5"
  "c_dec_38_0 = 12345678901234567890123456789012345678"
  "c_dec_38_10 = 123456789012345678901234567.8901234567"
  "c_dec_38_10 = 0.0000001"
  "c_time = '01:02:03.004'"
  "c_time = '00:00:00'"
  "c_ts0 = '2024-01-02 03:04:00'"
  "c_ts6 = '2024-01-02 03:04:05.123456'"
  "c_ts9 = '1969-12-31 23:59:59.999999999'"
  "c_ltz3 = '2024-01-02T03:04:05.123Z'"
  "c_ltz3 = '1970-01-01T00:00:00Z'"
  "c_ltz6 = '1969-12-31T23:59:59.999999Z'"
  "c_ltz9 = '1970-01-01T00:00:00.000000001Z'"
)

tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
for f in "${FILTERS[@]}"; do
  mapfile -t lines < <("$ORACLE" predicate-json "$TABLE" --filter "$f")
  python3 -c 'import json,sys; print(json.dumps({"filter": sys.argv[1], "json": sys.argv[2], "read_back": sys.argv[3].removeprefix("read-back: ")}, ensure_ascii=False))' \
    "$f" "${lines[0]}" "${lines[1]}" >>"$tmp"
done
mv "$tmp" "$OUT/all_types_parquet.jsonl"
trap - EXIT
echo "recorded ${#FILTERS[@]} filters in $OUT/all_types_parquet.jsonl" >&2
