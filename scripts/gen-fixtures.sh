#!/usr/bin/env bash
# Regenerates the reference tables and their expected rows with the Java oracle:
#   fixtures/warehouse/<db>.db/<table>/   written by `java-oracle.sh write-fixtures`
#   fixtures/expected/<db>/<table>/*.jsonl  written by `java-oracle.sh write-expected`
#     (latest, every snapshot, every tag, every branch, and the queries of fixtures/queries.json)
#   fixtures/plans/pk/<table>.jsonl         Java's plans, by `scripts/gen-plans.sh`
# Usage: scripts/gen-fixtures.sh          regenerate and replace fixtures/warehouse + expected
#        scripts/gen-fixtures.sh --check  regenerate into a temp dir and diff the expected rows
#                                         against the committed ones (rows must not change)
#        scripts/gen-fixtures.sh --only REGEX
#                                         (re)write only the tables whose `db.table` name matches
#                                         REGEX (e.g. 'append\.vector_store'), their expected rows
#                                         and their queries; every other table stays byte-identical
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE="$ROOT/scripts/java-oracle.sh"
FIX="$ROOT/fixtures"
mkdir -p "$ROOT/.cache"
TMP="$(mktemp -d "$ROOT/.cache/gen-fixtures.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

if [[ "${1:-}" == "--only" ]]; then
  ONLY="${2:?--only needs a regex of db.table names}"
  ORACLE_ONLY="$ONLY" "$ORACLE" write-fixtures "$TMP/warehouse"
  # Only the queries of the tables just written.
  python3 - "$FIX/queries.json" "$TMP/warehouse" >"$TMP/queries.json" <<'PY'
import json, os, sys
queries, wh = json.load(open(sys.argv[1])), sys.argv[2]
def written(q):
    db, table = q["table"].split("/")
    return os.path.isdir(os.path.join(wh, db + ".db", table))
print(json.dumps([q for q in queries if written(q)]))
PY
  "$ORACLE" write-expected "$TMP/warehouse" "$TMP/expected" --queries "$TMP/queries.json"
  for t in "$TMP"/warehouse/*.db/*/; do
    t="${t%/}" db="$(basename "$(dirname "$t")" .db)" name="$(basename "$t")"
    rm -rf "$FIX/warehouse/$db.db/$name" "$FIX/expected/$db/$name"
    mkdir -p "$FIX/expected/$db"
    mv "$t" "$FIX/warehouse/$db.db/$name"
    mv "$TMP/expected/$db/$name" "$FIX/expected/$db/$name"
    echo "gen-fixtures: wrote $db/$name"
  done
  exit 0
fi

"$ORACLE" write-fixtures "$TMP/warehouse" 2> >(tee "$TMP/write.log" >&2)
wait
"$ORACLE" write-expected "$TMP/warehouse" "$TMP/expected" --queries "$FIX/queries.json"

if [[ "${1:-}" == "--check" ]]; then
  if diff -r "$FIX/expected" "$TMP/expected" >"$TMP/diff.txt"; then
    echo "gen-fixtures: regenerated rows are identical to fixtures/expected"
  else
    head -50 "$TMP/diff.txt"
    echo "gen-fixtures: regenerated rows DIFFER from fixtures/expected" >&2
    exit 1
  fi
  exit 0
fi

rm -rf "$FIX/warehouse" "$FIX/expected"
mv "$TMP/warehouse" "$FIX/warehouse"
mv "$TMP/expected" "$FIX/expected"
grep -E '^(SKIP|REFUSED) ' "$TMP/write.log" > "$FIX/skipped.txt" || true
# The recorded Java plans name data files, which the new warehouse has renamed.
"$ROOT/scripts/gen-plans.sh"
echo "gen-fixtures: $(find "$FIX/warehouse" -mindepth 2 -maxdepth 2 -type d | wc -l) tables," \
  "$(du -sh "$FIX/warehouse" | cut -f1) warehouse, $(du -sh "$FIX/expected" | cut -f1) expected"
