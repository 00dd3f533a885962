#!/usr/bin/env bash
# Tests the S3 backend of paimon-io end to end against a real S3-protocol server on loopback.
#
#   1. installs moto (`moto[server]` from PyPI) when missing and starts `moto_server` on a free
#      127.0.0.1 port (stopped on exit);
#   2. creates a bucket and uploads fixture tables with boto3 (a byte-for-byte copy);
#   3. runs paimon-io's tests with `--features s3` (the integration test reads every uploaded
#      file back through read / read_range / size / exists / list and checks NotFound);
#   4. reads each table with `paimon read s3://... --format jsonl` (S3 is a default feature
#      of the CLI) and with `paimon sql` (DataFusion, the data plane's async read) and compares
#      the rows with the fixture's expected rows;
#   5. reads each table with the Python package (`paimon_rs.read_table` with the endpoint and
#      keys as FileIO options, from the venv scripts/test-python.sh made) and compares again;
#   6. writes: three `paimon write` processes committing to one new S3 table at once (snapshots
#      1..3, every row), then a Python `write_arrow` to it with FileIO options;
#   7. hostile paths (issue 39): paimon-cli's `hostile_s3` acceptance tests with a table in the
#      bucket `hostile-a`: commit messages, splits, compaction tasks and table options naming
#      objects of `hostile-b` (or climbing out of the table) are refused or re-rooted, and the
#      server's request log (moto's, `PAIMON_TEST_S3_LOG`) shows no request for those objects.
#
# Prints `N passed, M failed` last and exits non-zero when anything failed.
# Usage: scripts/test-s3.sh            (from anywhere; uses the workspace's target dir)
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$(pwd)

# Fixture tables to upload: path under fixtures/warehouse, expected rows under fixtures/expected.
# part_multi has partition directories with '%', '=' and ' ' in their names (escaped keys).
TABLES=(
  "append.db/unaware:append/unaware"
  "append.db/part_multi:append/part_multi"
  "pk.db/dv32:pk/dv32"
)
BUCKET=paimon-test
PREFIX=warehouse

source "$ROOT/scripts/test-lib.sh"
source "$ROOT/scripts/workspace-build.sh"

PY=${PYTHON:-python3}
if ! "$PY" -c 'import moto, boto3, flask' >/dev/null 2>&1 || ! command -v moto_server >/dev/null 2>&1; then
  echo "== installing moto[server]"
  "$PY" -m pip install --quiet 'moto[server]' || { fail "install moto[server]"; finish; }
fi
MOTO=$(command -v moto_server || echo "$PY -m moto.server")
[[ "${1:-}" == --prepare ]] && { echo "test-s3: prepared"; exit 0; }

WORK=$(mktemp -d)
MOTO_PID=
cleanup() {
  [ -n "$MOTO_PID" ] && kill "$MOTO_PID" 2>/dev/null && wait "$MOTO_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "== starting moto_server on 127.0.0.1:$PORT"
$MOTO -H 127.0.0.1 -p "$PORT" >"$WORK/moto.log" 2>&1 &
MOTO_PID=$!

export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
export PAIMON_S3_ENDPOINT="http://127.0.0.1:$PORT"
# Keep loopback requests away from any proxy configured on the machine.
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

upload_args=()
for t in "${TABLES[@]}"; do upload_args+=("${t%%:*}"); done
if "$PY" - "$PAIMON_S3_ENDPOINT" "$BUCKET" "$PREFIX" "$ROOT/fixtures/warehouse" "${upload_args[@]}" <<'EOF'
import os, sys, time
import boto3

endpoint, bucket, prefix, warehouse, tables = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
for attempt in range(100):
    try:
        s3.list_buckets()
        break
    except Exception as e:  # server still starting
        if attempt == 99:
            raise SystemExit(f"moto_server did not come up: {e}")
        time.sleep(0.2)
s3.create_bucket(Bucket=bucket)
# The hostile-path tests' table bucket and the other bucket they must never touch.
for b in ("hostile-a", "hostile-b"):
    s3.create_bucket(Bucket=b)
n = 0
for table in tables:
    base = os.path.join(warehouse, table)
    for dirpath, _, files in os.walk(base):
        for f in files:
            full = os.path.join(dirpath, f)
            key = f"{prefix}/{os.path.relpath(full, warehouse)}"
            s3.upload_file(full, bucket, key)
            n += 1
print(f"uploaded {n} files to s3://{bucket}/{prefix}/")
EOF
then
  pass "start moto_server and upload fixtures"
else
  fail "start moto_server and upload fixtures"
  sed 's/^/  moto: /' "$WORK/moto.log" | tail -20
  finish
fi

spec=""
for t in "${TABLES[@]}"; do
  spec+="s3://$BUCKET/$PREFIX/${t%%:*}=$ROOT/fixtures/warehouse/${t%%:*};"
done
export PAIMON_TEST_S3_TABLES="$spec"

# paimon-io's and paimon-cli's tests from the workspace build (scripts/workspace-build.sh).
echo "== paimon-io integration tests"
if ws_test paimon-io integration 2>&1 | tee "$WORK/io-test.log" | grep -E -A3 '^test |test result|panicked|error(\[|:)' | grep -v '^--$'; then :; fi
add_cargo_results "$WORK/io-test.log" "paimon-io tests"

echo "== paimon-cli acceptance tests: hostile_s3 (hostile paths on S3)"
PAIMON_TEST_S3_HOSTILE=hostile-a,hostile-b PAIMON_TEST_S3_LOG="$WORK/moto.log" \
  ws_test paimon-cli acceptance hostile_s3 >"$WORK/hostile-test.log" 2>&1
grep -E -A3 '^test |test result|panicked' "$WORK/hostile-test.log" | grep -v '^--$'
add_cargo_results "$WORK/hostile-test.log" "paimon-cli hostile S3 tests" 4

echo "== the workspace build's paimon (S3 is a default feature of the CLI)"
PAIMON_BIN=$(ws_paimon)
paimon() { "$PAIMON_BIN" "$@"; }

for t in "${TABLES[@]}"; do
  table=${t%%:*}
  expected=$ROOT/fixtures/expected/${t##*:}/latest.jsonl
  url="s3://$BUCKET/$PREFIX/$table"
  out="$WORK/$(echo "$table" | tr '/' '_').jsonl"
  if ! paimon read "$url" --format jsonl >"$out" 2>"$out.err"; then
    fail "paimon read $url: $(grep -E '^error' "$out.err" | tail -3)"
    continue
  fi
  if paimon compare-rows "$ROOT/fixtures/warehouse/$table" "$expected" "$out" >"$out.cmp" 2>&1; then
    pass "paimon read $url ($(wc -l <"$out") rows) matches ${expected#"$ROOT"/}"
  else
    fail "paimon read $url differs from ${expected#"$ROOT"/}: $(tail -5 "$out.cmp")"
  fi
done

# The same tables through `paimon sql` (DataFusion's scan reads with the async entry of the
# data plane, so this is the async path against the server).
for t in "${TABLES[@]}"; do
  table=${t%%:*}
  expected=$ROOT/fixtures/expected/${t##*:}/latest.jsonl
  db=${table%%.db/*}
  name=${table##*/}
  out="$WORK/sql_$(echo "$table" | tr '/' '_').jsonl"
  if ! paimon sql "s3://$BUCKET/$PREFIX" "SELECT * FROM $db.$name" --format jsonl >"$out" 2>"$out.err"; then
    fail "paimon sql over s3://$BUCKET/$PREFIX ($db.$name): $(grep -E '^error' "$out.err" | tail -3)"
    continue
  fi
  if paimon compare-rows "$ROOT/fixtures/warehouse/$table" "$expected" "$out" >"$out.cmp" 2>&1; then
    pass "paimon sql SELECT * FROM $db.$name over S3 ($(wc -l <"$out") rows) matches ${expected#"$ROOT"/}"
  else
    fail "paimon sql $db.$name over S3 differs from ${expected#"$ROOT"/}: $(tail -5 "$out.cmp")"
  fi
done

# Writes to S3: a table created there, three `paimon write` processes committing to it at once
# (snapshot-N is published with a conditional PUT, so exactly one writer gets each N), then the
# snapshot ids must be 1..3 and every row there.
W_URL="s3://$BUCKET/$PREFIX/w.db/orders"
W_OK=1
paimon create-table "$W_URL" --schema '{"fields":[{"name":"id","type":"BIGINT"},{"name":"w","type":"INT"}]}' \
  >"$WORK/create.log" 2>&1 || { W_OK=0; fail "paimon create-table $W_URL: $(tail -2 "$WORK/create.log")"; }
if [ "$W_OK" = 1 ]; then
  pids=()
  for w in 1 2 3; do
    { echo "id,w"; seq $((w * 1000)) $((w * 1000 + 199)) | sed "s/\$/,$w/"; } >"$WORK/w$w.csv"
    "${CARGO_TARGET_DIR:-$ROOT/target}/debug/paimon" write "$W_URL" --from "$WORK/w$w.csv" \
      >"$WORK/w$w.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2; do
    wait "${pids[$i]}" || { W_OK=0; fail "concurrent paimon write $((i + 1)) to $W_URL: $(tail -2 "$WORK/w$((i + 1)).log")"; }
  done
fi
if [ "$W_OK" = 1 ]; then
  ids=$(paimon snapshots "$W_URL" --json 2>/dev/null | sed -n 's/.*"id":\([0-9]*\).*/\1/p' | sort -n | tr '\n' ' ')
  rows=$(paimon read "$W_URL" --format null 2>/dev/null)
  if [ "$ids" = "1 2 3 " ] && [ "$rows" = 600 ]; then
    pass "three concurrent paimon write processes to $W_URL: snapshots 1 2 3, 600 rows"
  else
    fail "three concurrent paimon write processes to $W_URL: snapshots '$ids', rows '$rows' (want 1 2 3, 600)"
  fi
fi

# The Python package (built with S3 by default): each table read with the endpoint and keys
# given as FileIO options (the AWS variables are unset for this process), rows checked against
# the fixture's expected rows by `paimon compare-rows`.
PYVENV="${CARGO_TARGET_DIR:-$ROOT/target}/py-venv/bin/python"
if ! "$PYVENV" -c 'import paimon_rs' >/dev/null 2>&1; then
  fail "python: paimon_rs is not installed in $PYVENV (scripts/test-python.sh builds it)"
else
  for t in "${TABLES[@]}"; do
    table=${t%%:*}
    expected=$ROOT/fixtures/expected/${t##*:}/latest.jsonl
    url="s3://$BUCKET/$PREFIX/$table"
    out="$WORK/py-$(echo "$table" | tr '/' '_').arrow"
    if env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_REGION -u PAIMON_S3_ENDPOINT \
        "$PYVENV" - "$url" "$PAIMON_S3_ENDPOINT" "$out" >"$out.log" 2>&1 <<'EOF'
import sys
import pyarrow as pa
import paimon_rs as pr

url, endpoint, out = sys.argv[1:]
options = {"s3.endpoint": endpoint, "s3.access-key": "testing", "s3.secret-key": "testing",
           "s3.region": "us-east-1"}
t = pr.read_table(url, options=options)
with pa.OSFile(out, "wb") as f, pa.ipc.new_file(f, t.schema) as w:
    w.write_table(t)
print(t.num_rows)
EOF
    then
      if paimon compare-rows "$ROOT/fixtures/warehouse/$table" "$expected" "$out" >"$out.cmp" 2>&1; then
        pass "python read_table $url ($(tail -1 "$out.log") rows, options dict) matches ${expected#"$ROOT"/}"
      else
        fail "python read_table $url differs from ${expected#"$ROOT"/}: $(tail -5 "$out.cmp")"
      fi
    else
      fail "python read_table $url: $(tail -3 "$out.log")"
    fi
  done
  # A Python write to S3 (FileIO options, no AWS variables): appended to the table the CLI
  # writers made, then read back.
  if env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_REGION -u PAIMON_S3_ENDPOINT \
      "$PYVENV" - "$W_URL" "$PAIMON_S3_ENDPOINT" >"$WORK/pywrite.log" 2>&1 <<'EOF'
import sys
import pyarrow as pa
import paimon_rs as pr

url, endpoint = sys.argv[1:]
options = {"s3.endpoint": endpoint, "s3.access-key": "testing", "s3.secret-key": "testing",
           "s3.region": "us-east-1"}
t = pr.Table.open(url, options=options)
ids = t.write_arrow(pa.table({"id": list(range(10)), "w": [9] * 10}))
rows = t.scan(filter="w = 9").to_arrow().num_rows
print(ids, rows, pr.read_table(url, options=options).num_rows)
EOF
  then
    if [ "$(tail -1 "$WORK/pywrite.log")" = "[4] 10 610" ]; then
      pass "python write_arrow to $W_URL (options dict): snapshot 4, 10 rows with w = 9, 610 in all"
    else
      fail "python write_arrow to $W_URL: printed '$(tail -1 "$WORK/pywrite.log")', want '[4] 10 610'"
    fi
  else
    fail "python write_arrow to $W_URL: $(tail -3 "$WORK/pywrite.log")"
  fi
fi

finish
