#!/usr/bin/env bash
# Checks that the persistent Java oracle (scripts/with-oracle.sh, `paimon-oracle.jar serve`) answers
# exactly as a JVM per call does: for each call below, stdout, stderr and the exit code through the
# server equal those of `java -jar` (and files a command writes are byte-identical), concurrent calls
# each get their own answer, and calls the server must not take (a relative path from another
# directory) still give the JVM's answer. A call is known to be served when a fresh JVM could not
# have answered it (JAVA_TOOL_OPTIONS=-Xmx1k makes every new JVM fail to start).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ORACLE="$ROOT/scripts/java-oracle.sh"
# The JVM half makes WORK and then runs the served half (under scripts/with-oracle.sh) on it.
if [[ "${1:-}" == --served ]]; then
  WORK="$ORACLE_SERVE_TEST_WORK"
else
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/oracle-serve-test.XXXXXX")"
fi
trap 'rm -rf "$WORK"' EXIT
# Build the jar first (a fresh checkout has none): the build's own notice on stderr is not an
# answer of either mode.
if [[ "${1:-}" != --served ]]; then
  "$ORACLE" help >/dev/null 2>&1 || { echo "oracle serve: the oracle does not build or run"; exit 1; }
fi
APPEND="$ROOT/fixtures/warehouse/append.db/all_types_orc"
PK="$ROOT/fixtures/warehouse/pk.db/changelog_input"
fails=0

# name, then the oracle arguments; "@OUT" is replaced by a fresh output directory per mode.
CALLS=(
  "dump-sorted|dump $APPEND --sort"
  "dump-kind|dump $PK --with-kind --sort"
  "dump-filter|dump $APPEND --sort --select id --filter id>1"
  "bad-column|dump $APPEND --filter nope=1"
  "no-table|dump $WORK/none"
  "unknown-command|no-such-command x"
  "help|help"
  "plan|plan $PK --out-dir @OUT"
  "system-table|system-table $PK snapshots options"
)

run() { # mode name args...   (mode: jvm | served)
  local mode=$1 name=$2; shift 2
  local d="$WORK/$mode/$name"; mkdir -p "$d"
  # The same output path in both modes (plan prints it); moved into d afterwards.
  local out="$WORK/out/$name"; rm -rf "$out"
  local args=("${@//@OUT/$out}") rc=0
  if [[ $mode == jvm ]]; then
    env -u PAIMON_ORACLE_SOCKET "$ORACLE" "${args[@]}" >"$d/stdout" 2>"$d/stderr" || rc=$?
  else
    JAVA_TOOL_OPTIONS=-Xmx1k "$ORACLE" "${args[@]}" >"$d/stdout" 2>"$d/stderr" || rc=$?
  fi
  echo "$rc" >"$d/rc"
  if [[ -e "$out" ]]; then mv "$out" "$d/out"; fi
}

same() { # name
  local a="$WORK/jvm/$1" b="$WORK/served/$1"
  if diff -r "$a" "$b" >"$WORK/diff" 2>&1; then
    echo "ok   $1 (rc $(cat "$a/rc"), $(wc -c <"$a/stdout") bytes out, $(wc -c <"$a/stderr") bytes err)"
  else
    echo "FAIL $1: the server's answer differs from the JVM's:"; head -20 "$WORK/diff"
    fails=$((fails + 1))
  fi
}

if [[ "${1:-}" != --served ]]; then
  for c in "${CALLS[@]}"; do
    # shellcheck disable=SC2086
    run jvm "${c%%|*}" ${c#*|}
  done
  exec "$ROOT/scripts/with-oracle.sh" env ORACLE_SERVE_TEST_WORK="$WORK" "$0" --served
fi

# Second half, under the server (the JVM answers were written by the first half into the same WORK).
for c in "${CALLS[@]}"; do
  # shellcheck disable=SC2086
  run served "${c%%|*}" ${c#*|}
  same "${c%%|*}"
done

# Concurrent calls: each its own rows.
pids=()
for i in 1 2 3 4; do
  (JAVA_TOOL_OPTIONS=-Xmx1k "$ORACLE" dump "$APPEND" --sort >"$WORK/c$i" 2>&1) & pids+=($!)
  (JAVA_TOOL_OPTIONS=-Xmx1k "$ORACLE" dump "$PK" --with-kind --sort >"$WORK/k$i" 2>&1) & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
for i in 1 2 3 4; do
  if cmp -s "$WORK/c$i" "$WORK/jvm/dump-sorted/stdout" && cmp -s "$WORK/k$i" "$WORK/jvm/dump-kind/stdout"; then
    echo "ok   concurrent pair $i"
  else
    echo "FAIL concurrent pair $i: rows differ from the JVM's"; fails=$((fails + 1))
  fi
done

# A relative table path from another directory is not served (the server's directory is the
# repository root) but still answered, by a JVM.
rel=$(cd "$ROOT/crates" && env -u JAVA_TOOL_OPTIONS "$ORACLE" dump ../fixtures/warehouse/append.db/all_types_orc --sort 2>/dev/null || true)
if [[ "$rel" == "$(cat "$WORK/jvm/dump-sorted/stdout")" ]]; then
  echo "ok   relative path from crates/ (JVM fallback)"
else
  echo "FAIL relative path from crates/: wrong rows"; fails=$((fails + 1))
fi
if (cd "$ROOT/crates" && JAVA_TOOL_OPTIONS=-Xmx1k "$ORACLE" dump ../fixtures/warehouse/append.db/all_types_orc >/dev/null 2>&1); then
  echo "FAIL relative path from crates/ was served by a server whose directory is elsewhere"; fails=$((fails + 1))
else
  echo "ok   relative path from crates/ not served"
fi

if [[ $fails -gt 0 ]]; then
  echo "oracle serve: $fails check(s) failed"; exit 1
fi
echo "oracle serve: all checks passed"
