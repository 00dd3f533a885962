#!/usr/bin/env bash
# Records Java's plan of the latest snapshot of every primary-key fixture table as the expected
# value for paimon-meta's split-order tests:
#   fixtures/plans/pk/<table>.jsonl   one `java-oracle.sh plan` summary line per split, in Java's
#                                     order, without the machine-specific `bucketPath` / `file`;
#                                     deletion-file paths cut to the index file name
#   fixtures/splits/<case>/           Java's IncrementalSplit files of two incremental diffs
#   fixtures/plans/changes/*.jsonl    Java's streaming plans (--changes-since) of three tables
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

# Java's incremental-diff splits (IncrementalSplit object streams), compared by paimon-meta's
# java_incremental tests: fixtures/splits/<case>/split-NNNN.bin
SPLITS="$ROOT/fixtures/splits"
diff_splits() {
  local case="$1" table="$2"; shift 2
  rm -rf "$SPLITS/$case"
  "$ORACLE" plan "$WH/$table" "$@" --out-dir "$SPLITS/$case" > /dev/null
}
if [[ $# -eq 0 ]]; then
  diff_splits pk_many_snapshots_incremental_t3_t6 many_snapshots --incremental t3,t6
  diff_splits pk_dv32_diff_2_8 dv32 --incremental 2,8 --incremental-mode diff
  echo "gen-plans: incremental-diff splits in $SPLITS"
fi

# Java's streaming plans (`--changes-since N`: restore(N + 1), plan until no snapshot is left),
# one summary per split in Java's order, compared by paimon-meta's changes tests:
#   fixtures/plans/changes/<table>-since-<N>.jsonl
CHANGES="$ROOT/fixtures/plans/changes"
changes_plan() {
  local table="$1" since="$2"
  mkdir -p "$CHANGES"
  "$ORACLE" plan "$WH/$table" --changes-since "$since" --out-dir "$TMP/changes-$table-$since" \
    | python3 -c '
import json, sys
for line in sys.stdin:
    if line.strip():
        d = json.loads(line)
        d.pop("bucketPath", None)
        d.pop("file", None)
        print(json.dumps(d, separators=(",", ":")))
' > "$CHANGES/$table-since-$since.jsonl"
}
if [[ $# -eq 0 ]]; then
  changes_plan many_snapshots 10
  changes_plan changelog_full_compaction 0
  changes_plan partitioned 0
  echo "gen-plans: streaming plans in $CHANGES"
fi

# Java's plans with filters (value statistics prune primary-key files only where Java's
# KeyValueFileStoreScan lets them), compared by the acceptance suite's filtered_plans test:
#   fixtures/plans/filtered/cases.jsonl   {"name", "table" (in pk.db), "args"} per case
#   fixtures/plans/filtered/<name>.jsonl  Java's split summaries, as for the pk plans above
FILTERED="$ROOT/fixtures/plans/filtered"
if [[ $# -eq 0 ]]; then
  while IFS= read -r line; do
    [[ -z "$line" ]] && continue
    name=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["name"])' "$line")
    table=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["table"])' "$line")
    mapfile -t args < <(python3 -c 'import json,sys; print("\n".join(json.loads(sys.argv[1])["args"]))' "$line")
    "$ORACLE" plan "$WH/$table" "${args[@]}" --out-dir "$TMP/filtered-$name" \
      | python3 -c '
import json, os, sys
for line in sys.stdin:
    if line.strip():
        d = json.loads(line)
        d.pop("bucketPath", None)
        d.pop("file", None)
        for f in d.get("files", []):
            dv = f.get("deletionFile")
            if dv:
                dv["path"] = os.path.basename(dv["path"])
        print(json.dumps(d, separators=(",", ":")))
' > "$FILTERED/$name.jsonl"
  done < "$FILTERED/cases.jsonl"
  echo "gen-plans: filtered plans in $FILTERED"
fi
