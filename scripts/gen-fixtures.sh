#!/usr/bin/env bash
# Regenerates the reference tables and their expected rows with the Java oracle:
#   fixtures/warehouse/<db>.db/<table>/   written by `java-oracle.sh write-fixtures`
#   fixtures/expected/<db>/<table>/*.jsonl  written by `java-oracle.sh write-expected`
#     (latest, every snapshot, every tag, every branch, and the queries of fixtures/queries.json)
#   fixtures/plans/pk/<table>.jsonl         Java's plans, by `scripts/gen-plans.sh`
# Usage: scripts/gen-fixtures.sh          regenerate and replace fixtures/warehouse + expected
#        scripts/gen-fixtures.sh --check  regenerate into a temp dir and diff the expected rows
#                                         against the committed ones (rows must not change)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE="$ROOT/scripts/java-oracle.sh"
FIX="$ROOT/fixtures"
mkdir -p "$ROOT/.cache"
TMP="$(mktemp -d "$ROOT/.cache/gen-fixtures.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

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
