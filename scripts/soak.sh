#!/usr/bin/env bash
# Concurrency soak: Java Paimon commits while paimon-rs plans and reads.
#
# Usage: scripts/soak.sh SECONDS
#
# Creates a fresh table and runs the Java oracle's `commit-loop` on it for SECONDS (appends,
# a full compaction every 4th round, an expiration to 3 snapshots every 3rd). Meanwhile, in a
# loop: `paimon plan TABLE --json` picks the latest snapshot N, Java dumps snapshot N
# (`dump --snapshot N --sort`), then `paimon read TABLE --snapshot N --format jsonl` reads it.
# Each round passes when
#   * both read N and the rows are equal (multisets); or
#   * our read failed with a clear "snapshot N ... expired / not found" error because N was
#     expired meanwhile (Java failed too, or N is gone now).
# Anything else fails: different rows, rows where the snapshot could not be read, another error,
# a panic. Prints `N passed, M failed` and exits 1 when M > 0.
#
# Env: PAIMON (the binary; default: `cargo build -p paimon-cli`, target/debug/paimon),
#      SOAK_RETAIN (snapshots the writer's expiration keeps, default 30: about ten seconds' worth,
#      so most rounds compare with Java and some race with an expiration),
#      SOAK_KEEP=1 keeps the work directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${1:?usage: scripts/soak.sh SECONDS}"
[[ "$DURATION" =~ ^[0-9]+$ ]] || { echo "soak: SECONDS must be a number" >&2; exit 2; }

if [[ -z "${PAIMON:-}" ]]; then
  (cd "$ROOT" && cargo build -q -p paimon-cli)
  PAIMON="$ROOT/target/debug/paimon"
fi
ORACLE="$ROOT/scripts/java-oracle.sh"
# Build the oracle jar once, before the clock starts.
"$ORACLE" dump "$ROOT/fixtures/warehouse/append.db/unaware" >/dev/null

WORK="$(mktemp -d "${TMPDIR:-/tmp}/paimon-soak.XXXXXX")"
TABLE="$WORK/soak.db/t"
WRITER_PID=""
cleanup() {
  if [[ -n "$WRITER_PID" ]] && kill -0 "$WRITER_PID" 2>/dev/null; then
    kill "$WRITER_PID" 2>/dev/null || true
    wait "$WRITER_PID" 2>/dev/null || true
  fi
  if [[ "${SOAK_KEEP:-0}" == 1 ]]; then
    echo "soak: work directory kept: $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

"$ORACLE" commit-loop "$TABLE" --seconds "$DURATION" --retain "${SOAK_RETAIN:-30}" \
  >"$WORK/writer.log" 2>&1 &
WRITER_PID=$!

# Wait for the first snapshot (the JVM needs a moment).
for _ in $(seq 1 600); do
  [[ -f "$TABLE/snapshot/LATEST" ]] && break
  kill -0 "$WRITER_PID" 2>/dev/null || break
  sleep 0.1
done
if [[ ! -f "$TABLE/snapshot/LATEST" ]]; then
  echo "soak: the writer produced no snapshot:" >&2
  tail -5 "$WORK/writer.log" >&2
  exit 1
fi

passed=0 failed=0 compared=0 expired=0 round=0
fail() {
  failed=$((failed + 1))
  echo "FAIL round $round snapshot $1: $2" >&2
}

while kill -0 "$WRITER_PID" 2>/dev/null; do
  round=$((round + 1))
  d="$WORK/round"
  rm -rf "$d" && mkdir -p "$d"
  if ! "$PAIMON" plan "$TABLE" --json >"$d/plan.json" 2>"$d/plan.err"; then
    # Planning the latest snapshot while it is being expired: only a clear error is fine.
    if grep -Eqi 'expired|not found' "$d/plan.err"; then
      passed=$((passed + 1)) expired=$((expired + 1))
    else
      fail "?" "plan failed: $(head -c 300 "$d/plan.err")"
    fi
    continue
  fi
  snap="$(grep -m1 -o '"snapshotId": *[0-9-]*' "$d/plan.json" | grep -o '[0-9-]*$' || true)"
  if [[ -z "$snap" ]]; then
    fail "?" "no snapshotId in the plan: $(head -c 200 "$d/plan.json")"
    continue
  fi
  "$ORACLE" dump "$TABLE" --snapshot "$snap" --sort >"$d/java.jsonl" 2>"$d/java.err" && jrc=0 || jrc=$?
  "$PAIMON" read "$TABLE" --snapshot "$snap" --format jsonl >"$d/ours.jsonl" 2>"$d/ours.err" && orc=0 || orc=$?
  if [[ $orc -ne 0 && $orc -ne 1 ]]; then
    fail "$snap" "exit code $orc: $(head -c 300 "$d/ours.err")"
    continue
  fi
  if [[ $orc -eq 1 ]]; then
    if [[ -s "$d/ours.jsonl" ]]; then
      fail "$snap" "failed but printed $(wc -l <"$d/ours.jsonl") rows"
    elif [[ "$(wc -l <"$d/ours.err")" -ne 1 ]]; then
      fail "$snap" "more than one error line: $(head -c 300 "$d/ours.err")"
    elif ! grep -Eqi "snapshot $snap .*(expired|not found)|snapshot $snap has expired" "$d/ours.err"; then
      fail "$snap" "unclear error: $(head -c 300 "$d/ours.err")"
    elif [[ $jrc -eq 0 && -f "$TABLE/snapshot/snapshot-$snap" ]]; then
      fail "$snap" "Java read it and it still exists, but we failed: $(head -c 300 "$d/ours.err")"
    else
      passed=$((passed + 1)) expired=$((expired + 1))
      cat "$d/ours.err" >>"$WORK/expired.log"
    fi
    continue
  fi
  if [[ $jrc -ne 0 ]]; then
    # Java could not read N (expired before its read); ours ran later on fewer files, so rows
    # from us mean we read something other than snapshot N.
    fail "$snap" "Java failed ($(grep -m1 -i 'exception\|error' "$d/java.err" | head -c 200)) but we returned $(wc -l <"$d/ours.jsonl") rows"
    continue
  fi
  LC_ALL=C sort "$d/ours.jsonl" >"$d/ours.sorted"
  if cmp -s "$d/ours.sorted" "$d/java.jsonl" \
    || "$PAIMON" compare-rows "$TABLE" "$d/java.jsonl" "$d/ours.sorted" >"$d/cmp.out" 2>&1; then
    passed=$((passed + 1)) compared=$((compared + 1))
  else
    fail "$snap" "rows differ from Java's: $(head -c 400 "$d/cmp.out")"
  fi
done

wait "$WRITER_PID" && wrc=0 || wrc=$?
WRITER_PID=""
commits="$(grep -c '"action"' "$WORK/writer.log" || true)"
echo "soak: ${DURATION}s, writer made $commits commits/compactions/expirations (exit $wrc);" \
  "$round rounds: $compared compared equal with Java, $expired failed cleanly on an expired snapshot"
if [[ -s "$WORK/expired.log" ]]; then
  echo "soak: e.g. $(sed -e "s|$WORK/||g" "$WORK/expired.log" | sort | uniq -c | sort -rn | head -3 | cut -c1-200)"
fi
echo "$passed passed, $failed failed"
if [[ $wrc -ne 0 ]]; then
  echo "soak: the Java writer failed:" >&2
  tail -5 "$WORK/writer.log" >&2
  exit 1
fi
[[ $failed -eq 0 ]]
