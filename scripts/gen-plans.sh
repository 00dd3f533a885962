#!/usr/bin/env bash
# Records Java's plan of the latest snapshot of every primary-key fixture table as the expected
# value for paimon-meta's split-order tests:
#   fixtures/plans/pk/<table>.jsonl   one `java-oracle.sh plan` summary line per split, in Java's
#                                     order, without the machine-specific `bucketPath` / `file`;
#                                     deletion-file paths cut to the index file name
# The plans name data files, so rerun this after `scripts/gen-fixtures.sh` rewrites the warehouse
# (gen-fixtures.sh calls it). Usage: scripts/gen-plans.sh [TABLE...]   (default: all of pk.db)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE="$ROOT/scripts/java-oracle.sh"
WH="$ROOT/fixtures/warehouse/pk.db"
OUT="$ROOT/fixtures/plans/pk"
mkdir -p "$OUT" "$ROOT/.cache"
TMP="$(mktemp -d "$ROOT/.cache/gen-plans.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

if [[ $# -gt 0 ]]; then
  tables=("$@")
else
  mapfile -t tables < <(find "$WH" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
fi

for t in "${tables[@]}"; do
  "$ORACLE" plan "$WH/$t" --out-dir "$TMP/$t" > "$TMP/$t.jsonl"
  python3 - "$TMP/$t.jsonl" "$OUT/$t.jsonl" <<'PY'
import json, os, sys
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as dst:
    for line in src:
        if line.strip():
            d = json.loads(line)
            d.pop("bucketPath", None)
            d.pop("file", None)
            for f in d.get("files", []):
                dv = f.get("deletionFile")
                if dv:
                    dv["path"] = os.path.basename(dv["path"])
            dst.write(json.dumps(d, separators=(",", ":")) + "\n")
PY
done
echo "gen-plans: ${#tables[@]} plans in $OUT"
