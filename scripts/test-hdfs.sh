#!/usr/bin/env bash
# Tests the HDFS backend of paimon-io end to end against a real one-node HDFS on loopback.
#
#   1. builds interop/minidfs (Hadoop 3.3.6's MiniDFSCluster from Maven Central) and starts it:
#      a name node and a data node in one JVM, storage in a temp dir, stopped on exit;
#   2. runs paimon-io's tests with `PAIMON_TEST_HDFS_URL` set (files across blocks, creates the
#      name node refuses, aborts, publish-if-absent, eight threads racing for snapshot ids, and
#      delete_empty_dir removing an empty directory but not one holding a file);
#   3. creates a primary-key table on HDFS with `paimon create-table`, then three `paimon write`
#      processes commit to it at once: snapshots 1..3, every row;
#   4. Java Paimon 1.4.2 (the oracle, Hadoop's own HDFS client) appends to the table, compacts
#      it, and reads it: its rows must equal the rows this script wrote;
#   5. `paimon read` of Java's snapshots gives the same rows;
#   6. the Python package (from the venv scripts/test-python.sh made) writes to the table with
#      `write_arrow` and reads it back.
#
# Prints `N passed, M failed` last and exits non-zero when anything failed.
# Usage: scripts/test-hdfs.sh            (from anywhere; uses the workspace's target dir)
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
MINIDFS=$ROOT/interop/minidfs

source "$ROOT/scripts/test-lib.sh"
source "$ROOT/scripts/workspace-build.sh"

WORK=$(mktemp -d)
DFS_PID=
cleanup() {
  # Closing the cluster's stdin stops it; it deletes its storage on the way out.
  exec 8>&- 2>/dev/null
  [ -n "$DFS_PID" ] && { wait "$DFS_PID" 2>/dev/null || kill "$DFS_PID" 2>/dev/null; }
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== building interop/minidfs"
if ! (cd "$MINIDFS" && { mvn -q -B -o package -DskipTests >/dev/null 2>&1 \
      || mvn -q -B package -DskipTests; }) >"$WORK/mvn.log" 2>&1; then
  fail "build interop/minidfs: $(tail -5 "$WORK/mvn.log")"
  finish
fi

[[ "${1:-}" == --prepare ]] && { echo "test-hdfs: prepared"; exit 0; }

echo "== starting a one-node HDFS"
mkfifo "$WORK/dfs.in"
java -cp "$MINIDFS/target/classes:$(cat "$MINIDFS/target/classpath.txt")" \
  org.paimonrs.minidfs.Main <"$WORK/dfs.in" >"$WORK/dfs.out" 2>"$WORK/dfs.log" &
DFS_PID=$!
exec 8>"$WORK/dfs.in"
URL=
for _ in $(seq 1 240); do
  URL=$(sed -n 1p "$WORK/dfs.out")
  [ -n "$URL" ] && break
  kill -0 "$DFS_PID" 2>/dev/null || break
  sleep 0.5
done
if [ -z "$URL" ]; then
  fail "start MiniDFSCluster: $(tail -10 "$WORK/dfs.log")"
  finish
fi
pass "MiniDFSCluster up at $URL"
export PAIMON_TEST_HDFS_URL=$URL

# paimon-io's integration tests from the workspace build (scripts/workspace-build.sh).
echo "== paimon-io integration tests: hdfs"
ws_test paimon-io integration hdfs >"$WORK/io-test.log" 2>&1
grep -E '^test |test result|panicked' "$WORK/io-test.log"
add_cargo_results "$WORK/io-test.log" "paimon-io HDFS tests" 5

echo "== the workspace build's paimon (HDFS is a default feature of the CLI)"
PAIMON=$(ws_paimon)
ORACLE=$ROOT/scripts/java-oracle.sh

# Three writers, 200 rows each, one table: (id BIGINT PK, v STRING), two buckets.
T="$URL/warehouse/w.db/orders"
OK=1
"$PAIMON" create-table "$T" --schema '{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"}]}' \
  --primary-key id --option bucket=2 >"$WORK/create.log" 2>&1 \
  || { OK=0; fail "paimon create-table $T: $(tail -2 "$WORK/create.log")"; }
: >"$WORK/expected.jsonl"
if [ "$OK" = 1 ]; then
  pids=()
  for w in 1 2 3; do
    { echo "id,v"; seq $((w * 1000)) $((w * 1000 + 199)) | sed "s/\$/,rs-$w/"; } >"$WORK/w$w.csv"
    seq $((w * 1000)) $((w * 1000 + 199)) | sed "s/.*/{\"id\":&,\"v\":\"rs-$w\"}/" >>"$WORK/expected.jsonl"
    "$PAIMON" write "$T" --from "$WORK/w$w.csv" >"$WORK/w$w.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2; do
    wait "${pids[$i]}" || { OK=0; fail "concurrent paimon write $((i + 1)) to $T: $(tail -2 "$WORK/w$((i + 1)).log")"; }
  done
fi
if [ "$OK" = 1 ]; then
  ids=$("$PAIMON" snapshots "$T" --json 2>/dev/null | sed -n 's/.*"id":\([0-9]*\).*/\1/p' | sort -n | tr '\n' ' ')
  rows=$("$PAIMON" read "$T" --format null 2>/dev/null)
  if [ "$ids" = "1 2 3 " ] && [ "$rows" = 600 ]; then
    pass "three concurrent paimon write processes to $T: snapshots 1 2 3, 600 rows"
  else
    OK=0
    fail "three concurrent paimon write processes to $T: snapshots '$ids', rows '$rows' (want 1 2 3, 600)"
  fi
fi

# Java on our HDFS table: it appends ten rows (its own commit, snapshot 4), compacts
# (snapshot 5), and reads; then we read Java's snapshots.
if [ "$OK" = 1 ]; then
  seq 5000 5009 | sed 's/.*/{"id":&,"v":"java-&"}/' >>"$WORK/expected.jsonl"
  LC_ALL=C sort "$WORK/expected.jsonl" -o "$WORK/expected.jsonl"
  if "$ORACLE" prepare-messages "$T" "$WORK/java-msgs" --from 5000 --to 5010 --commit true \
      >"$WORK/java-write.log" 2>&1 \
    && "$ORACLE" compact "$T" >"$WORK/java-compact.log" 2>&1; then
    pass "Java appends to and compacts the table paimon wrote on HDFS"
  else
    fail "Java append/compact on $T: $(tail -3 "$WORK/java-write.log" "$WORK/java-compact.log")"
  fi
  if "$ORACLE" dump "$T" --sort >"$WORK/java.jsonl" 2>"$WORK/java-dump.log" \
      && cmp -s "$WORK/java.jsonl" "$WORK/expected.jsonl"; then
    pass "Java reads the HDFS table: $(wc -l <"$WORK/java.jsonl") rows, equal to the rows written"
  else
    fail "Java's rows of $T differ from the rows written: $(diff "$WORK/java.jsonl" "$WORK/expected.jsonl" | head -5; tail -2 "$WORK/java-dump.log")"
  fi
  ids=$("$PAIMON" snapshots "$T" --json 2>/dev/null | sed -n 's/.*"id":\([0-9]*\).*/\1/p' | sort -n | tr '\n' ' ')
  if "$PAIMON" read "$T" --format jsonl 2>"$WORK/rs-read.log" | LC_ALL=C sort >"$WORK/rs.jsonl" \
      && [ "$ids" = "1 2 3 4 5 " ] && cmp -s "$WORK/rs.jsonl" "$WORK/expected.jsonl"; then
    pass "paimon reads Java's snapshots 4 and 5 on HDFS: $(wc -l <"$WORK/rs.jsonl") rows, equal"
  else
    fail "paimon read after Java's commits: snapshots '$ids'; $(diff "$WORK/rs.jsonl" "$WORK/expected.jsonl" | head -5; tail -2 "$WORK/rs-read.log")"
  fi
fi

# The Python package (HDFS is a default feature of the wheel too): write_arrow commits ten
# rows to the table, then read_table reads every row.
PYVENV="$TARGET/py-venv/bin/python"
if [ "$OK" = 1 ]; then
  if ! "$PYVENV" -c 'import paimon_rs' >/dev/null 2>&1; then
    fail "python: paimon_rs is not installed in $PYVENV (scripts/test-python.sh builds it)"
  elif "$PYVENV" - "$T" >"$WORK/py.log" 2>&1 <<'EOF'
import sys
import pyarrow as pa
import paimon_rs as pr

url = sys.argv[1]
ids = range(7000, 7010)
snapshots = pr.Table.open(url).write_arrow(
    pa.table({"id": pa.array(ids, pa.int64()), "v": [f"py-{i}" for i in ids]}))
rows = pr.read_table(url)
print(snapshots, rows.num_rows, sum(v.startswith("py-") for v in rows.column("v").to_pylist()))
EOF
  then
    if [ "$(tail -1 "$WORK/py.log")" = "[6] 620 10" ]; then
      pass "python write_arrow to $T: snapshot 6; read_table: 620 rows, the 10 written from Python among them"
    else
      fail "python on $T: printed '$(tail -1 "$WORK/py.log")', want '[6] 620 10'"
    fi
  else
    fail "python on $T: $(tail -3 "$WORK/py.log")"
  fi
fi

finish
