#!/usr/bin/env bash
# Cross-language interop checks against the Java oracle (issue 3).
#
# Today: Java's expected rows for every table under ../shared/testdata/paimon-cpp (a directory
# with both schema/ and snapshot/), computed into the ignored cache
#   .cache/interop/expected/<path relative to paimon-cpp>/latest.jsonl
#   (+ snapshot-N.jsonl for primary-key tables, branch-B/latest.jsonl for each branch)
# One line per case ("ok <table>" / "FAIL <table> <reason>"), then "N passed, M failed".
# These rows derive from data that is not ours: never commit them.
#
# Later: the Rust-side comparisons (Java plans / paimon reads, paimon plans / Java reads,
# paimon read == Java dump for fixtures and paimon-cpp tables) are added here as more cases.
#
# Env: PAIMON_CPP_DATA (default ../shared/testdata/paimon-cpp), INTEROP_CACHE (default .cache/interop)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA="${PAIMON_CPP_DATA:-$ROOT/../shared/testdata/paimon-cpp}"
CACHE="${INTEROP_CACHE:-$ROOT/.cache/interop}"
ORACLE="$ROOT/scripts/java-oracle.sh"

if [[ ! -d "$DATA" ]]; then
  echo "interop: missing $DATA (the shared paimon-cpp test data)" >&2
  exit 2
fi
DATA="$(cd "$DATA" && pwd)"
mkdir -p "$CACHE"
LIST="$CACHE/paimon-cpp-tables.tsv"
: > "$LIST"
while IFS= read -r schema_dir; do
  table="$(dirname "$schema_dir")"
  [[ -d "$table/snapshot" ]] || continue
  # branch/branch-B/ holds a branch's metadata, not a table: dumped via its table's --branch.
  [[ "$table" == */branch/branch-* ]] && continue
  rel="${table#"$DATA"/}"
  out="$CACHE/expected/$rel"
  rm -rf "$out"
  printf '%s\t%s\n' "$table" "$out" >> "$LIST"
done < <(find "$DATA" -type d -name schema | LC_ALL=C sort)

passed=0
failed=0
while IFS= read -r line; do
  case "$line" in
    ok\ *)   passed=$((passed + 1)); echo "ok   java-dump ${line#ok "$DATA"/}" ;;
    FAIL\ *) failed=$((failed + 1)); rest="${line#FAIL "$DATA"/}"; echo "FAIL java-dump $rest" ;;
    *)       echo "$line" ;;
  esac
done < <("$ORACLE" dump-tables "$LIST")

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
