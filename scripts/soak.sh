#!/usr/bin/env bash
# Concurrency soak: Java Paimon and `paimon write` commit while paimon-rs plans and reads.
#
# Usage: scripts/soak.sh SECONDS
#
# Creates a fresh table and runs the Java oracle's `commit-loop` on it for SECONDS (appends,
# a full compaction every 4th round, an expiration to 3 snapshots every 3rd). Beside it, our
# writer loops `paimon write TABLE --from ours-K.csv` (10 rows each, keys 1000000 + 10K + i,
# disjoint from Java's 0..999), with `paimon compact --full` every 5th write and
# `paimon expire-snapshots` every 7th. Meanwhile, in a
# loop: `paimon plan TABLE --json` picks the latest snapshot N, Java dumps snapshot N
# (`dump --snapshot N --sort`), then `paimon read TABLE --snapshot N --format jsonl` reads it.
# Each round passes when
#   * both read N and the rows are equal (multisets); or
#   * our read failed with a clear "snapshot N ... expired / not found" error because N was
#     expired meanwhile (Java failed too, or N is gone now).
# Anything else fails: different rows, rows where the snapshot could not be read, another error,
# a panic. At the end Java dumps the latest snapshot: every row of every `paimon write` that
# succeeded is there once with its value, no row of a write that failed is, and a failed write
# must have said why in one line naming a commit conflict. Java's own commit is not safe
# against a concurrent committer without a lock (it checks that snapshot-N is absent, then
# renames onto it, replacing whatever appeared meanwhile): a snapshot of ours found replaced by
# Java's right after our commit is counted apart, and its rows must be absent. Prints `N passed, M failed` and exits
# 1 when M > 0.
#
# Our `paimon write` and `paimon compact` run with injected publish failures
# (PAIMON_TEST_FAULT_PUBLISH, the CLI's test hook): each snapshot publish fails with probability
# SOAK_FAULT_PUBLISH, half of the time after the snapshot landed. Each write must still land
# exactly once: right after it, exactly one APPEND snapshot carries its commit user
# (`paimon-cli-write-PID-...`), and at the end every snapshot left reads, every manifest list
# it names exists.
#
# Env: PAIMON (the binary; default: the workspace build's, scripts/workspace-build.sh),
#      SOAK_FAULT_PUBLISH (default 0.2; 0 turns the injection off),
#      SOAK_RETAIN (snapshots the writer's expiration keeps, default 30: about ten seconds' worth,
#      so most rounds compare with Java and some race with an expiration),
#      SOAK_KEEP=1 keeps the work directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${1:?usage: scripts/soak.sh SECONDS}"
[[ "$DURATION" =~ ^[0-9]+$ ]] || { echo "soak: SECONDS must be a number" >&2; exit 2; }
FAULT="${SOAK_FAULT_PUBLISH:-0.2}"

if [[ -z "${PAIMON:-}" ]]; then
  source "$ROOT/scripts/workspace-build.sh"
  PAIMON=$(cd "$ROOT" && ws_paimon)
fi
ORACLE="$ROOT/scripts/java-oracle.sh"
# Build the oracle jar once, before the clock starts.
"$ORACLE" dump "$ROOT/fixtures/warehouse/append.db/unaware" >/dev/null

WORK="$(mktemp -d "${TMPDIR:-/tmp}/paimon-soak.XXXXXX")"
TABLE="$WORK/soak.db/t"
WRITER_PID=""
OURS_PID=""
cleanup() {
  for pid in "$WRITER_PID" "$OURS_PID"; do
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  if [[ "${SOAK_KEEP:-0}" == 1 ]]; then
    echo "soak: work directory kept: $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

# The table commit-loop would create, made by us: with two writers racing for every snapshot,
# Java's default of 10 commit retries (`commit.max-retries`) can run out, so it gets more; and
# `write-only`, as Java asks of writers beside dedicated compactors (a writer's own compaction
# would otherwise conflict with theirs). Compactions (Java's every 4th round, ours) and
# expirations are explicit.
"$PAIMON" create-table "$TABLE" \
  --schema '{"fields":[{"name":"id","type":"BIGINT NOT NULL"},{"name":"v","type":"STRING"},{"name":"n","type":"INT"}]}' \
  --primary-key id --option bucket=2 --option commit.max-retries=1000 --option write-only=true \
  >/dev/null
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

# Our writer: one `paimon write` after another while Java's writer runs; each outcome is logged
# as "K ok" or "K failed <first line>".
ours_writer() {
  local k=0 f
  while kill -0 "$WRITER_PID" 2>/dev/null; do
    k=$((k + 1))
    f="$WORK/ours-$k.csv"
    {
      echo "id,v,n"
      for i in 0 1 2 3 4 5 6 7 8 9; do echo "$((1000000 + k * 10 + i)),rs-$k-$i,$k"; done
    } >"$f"
    PAIMON_TEST_FAULT_PUBLISH="$FAULT" "$PAIMON" write "$TABLE" --from "$f" >"$WORK/ours-$k.out" 2>&1 &
    local pid=$!
    if wait "$pid"; then
      # Landed exactly once: the APPEND snapshots of this process's commit user.
      local mine
      mine="$(grep -l "\"commitUser\" *: *\"paimon-cli-write-$pid-" "$TABLE"/snapshot/snapshot-* 2>/dev/null \
        | xargs -r grep -l '"commitKind" *: *"APPEND"' | wc -l)"
      if [[ "$mine" -gt 1 ]]; then
        echo "$k twice $mine" >>"$WORK/ours.log"
        continue
      fi
      # Java's commit checks that snapshot-N is absent, then renames its file onto it, which
      # replaces a file made in between (Java needs an external lock for concurrent writers;
      # ours never replaces one). A snapshot of ours that Java replaced so carries Java's
      # commit user a moment later.
      snap="$(grep -o 'committed snapshot [0-9]*' "$WORK/ours-$k.out" | grep -o '[0-9]*$' || true)"
      sleep 0.2
      user="$(grep -o '"commitUser" *: *"[^"]*"' "$TABLE/snapshot/snapshot-$snap" 2>/dev/null || true)"
      if [[ -n "$user" && "$user" != *paimon-cli-write-* ]]; then
        echo "$k replaced-by-java $snap" >>"$WORK/ours.log"
      else
        echo "$k ok" >>"$WORK/ours.log"
      fi
    else
      echo "$k failed $(head -c 300 "$WORK/ours-$k.out" | tr '\n' ' ')" >>"$WORK/ours.log"
    fi
    # Our compactor and expirer beside Java's: a full compaction every 5th write, an
    # expiration to the writer's retention every 7th. A compaction that loses to Java's must
    # fail with a conflict and commit nothing.
    if ((k % 5 == 0)); then
      if PAIMON_TEST_FAULT_PUBLISH="$FAULT" "$PAIMON" compact "$TABLE" --full >"$WORK/compact-$k.out" 2>&1; then
        echo "compact-$k ok" >>"$WORK/maint.log"
      else
        echo "compact-$k failed $(head -c 300 "$WORK/compact-$k.out" | tr '\n' ' ')" >>"$WORK/maint.log"
      fi
    fi
    if ((k % 7 == 0)); then
      if "$PAIMON" expire-snapshots "$TABLE" --retain-max "${SOAK_RETAIN:-30}" --retain-min 1 \
        --older-than "0 s" >"$WORK/expire-$k.out" 2>&1; then
        echo "expire-$k ok" >>"$WORK/maint.log"
      else
        echo "expire-$k failed $(head -c 300 "$WORK/expire-$k.out" | tr '\n' ' ')" >>"$WORK/maint.log"
      fi
    fi
    # A few writes a second: enough to race Java's commits, not enough to starve the readers.
    sleep 0.2
  done
}
ours_writer &
OURS_PID=$!

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
wait "$OURS_PID" || true
OURS_PID=""
commits="$(grep -c '"action"' "$WORK/writer.log" || true)"
echo "soak: ${DURATION}s, writer made $commits commits/compactions/expirations (exit $wrc);" \
  "$round rounds: $compared compared equal with Java, $expired failed cleanly on an expired snapshot"

# Our writes, checked against Java's read of the final table.
round="final"
"$ORACLE" dump "$TABLE" --sort >"$WORK/final.jsonl" 2>"$WORK/final.err" || fail "latest" "Java's final dump failed: $(head -c 300 "$WORK/final.err")"
ours_ok=0 ours_failed=0 replaced=0
while read -r k status rest; do
  n="$(grep -c "\"v\":\"rs-$k-[0-9]\"" "$WORK/final.jsonl" || true)"
  if [[ "$status" == ok ]]; then
    ours_ok=$((ours_ok + 1))
    [[ "$n" -eq 10 ]] || fail "latest" "paimon write $k succeeded but Java reads $n of its 10 rows"
  elif [[ "$status" == twice ]]; then
    fail "latest" "paimon write $k landed in $rest APPEND snapshots"
  elif [[ "$status" == replaced-by-java ]]; then
    replaced=$((replaced + 1))
    [[ "$n" -eq 0 ]] || fail "latest" "paimon write $k's snapshot was replaced by Java's, yet Java reads $n of its rows"
  else
    ours_failed=$((ours_failed + 1))
    [[ "$n" -eq 0 ]] || fail "latest" "paimon write $k failed but Java reads $n of its rows"
    grep -qi "conflict" <<<"$rest" || fail "latest" "paimon write $k failed without a commit conflict: $rest"
  fi
done <"$WORK/ours.log"
[[ $ours_ok -gt 0 ]] || fail "latest" "no paimon write succeeded"
# No snapshot lost its manifests (a publish that failed after landing must keep them).
kept=0
for sf in "$TABLE"/snapshot/snapshot-*; do
  n="${sf##*-}"
  kept=$((kept + 1))
  for list in $(grep -o '"\(base\|delta\|changelog\)ManifestList" *: *"[^"]*"' "$sf" | sed 's/.*: *"\(.*\)"/\1/'); do
    [[ -f "$TABLE/manifest/$list" ]] || fail "$n" "manifest list $list is missing"
  done
  "$PAIMON" read "$TABLE" --snapshot "$n" --format null >/dev/null 2>"$WORK/final-read.err" \
    || fail "$n" "reading it failed: $(head -c 300 "$WORK/final-read.err")"
done
echo "soak: publishes failed with probability $FAULT; the $kept snapshots left all read"
maint_ok=0 maint_conflicts=0
if [[ -f "$WORK/maint.log" ]]; then
  while read -r what status rest; do
    if [[ "$status" == ok ]]; then
      maint_ok=$((maint_ok + 1))
    elif grep -qi "conflict" <<<"$rest"; then
      maint_conflicts=$((maint_conflicts + 1))
    else
      fail "latest" "paimon $what failed without a commit conflict: $rest"
    fi
  done <"$WORK/maint.log"
fi
compactions="$(grep -c '^compact-.* ok' "$WORK/maint.log" 2>/dev/null || true)"
[[ "${compactions:-0}" -gt 0 ]] || fail "latest" "no paimon compact succeeded"
echo "soak: paimon compact / expire-snapshots ran $maint_ok times ($compactions compactions)," \
  "$maint_conflicts refused on a conflict"
echo "soak: paimon write committed $ours_ok times beside Java's writer ($ours_failed refused on a conflict," \
  "$replaced snapshots replaced by Java's lock-less rename); Java reads every row of each, and none of the others"
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
