#!/usr/bin/env bash
# Runs COMMAND with one persistent Java oracle beside it: `paimon-oracle.jar serve` on a Unix socket
# in a private temporary directory, its path in PAIMON_ORACLE_SOCKET. Every scripts/java-oracle.sh
# call made by COMMAND (the Rust test helpers, the Python tests, scripts/interop.sh) is then answered
# by that JVM instead of starting one per call (~2 s of JVM start and class loading each); the
# output, stderr and exit code are the command's own. The server is stopped when COMMAND ends.
# Usage: scripts/with-oracle.sh COMMAND [ARGS...]     e.g. scripts/with-oracle.sh cargo test -p paimon-meta
# Nested calls reuse the running server.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JAR="$ROOT/interop/java/target/paimon-oracle.jar"

if [[ -n "${PAIMON_ORACLE_SOCKET:-}" && -S "$PAIMON_ORACLE_SOCKET" ]]; then
  exec "$@"
fi

# Builds the jar when it is missing or stale (the call itself only prints the usage).
"$ROOT/scripts/java-oracle.sh" help >/dev/null

dir="$(mktemp -d "${TMPDIR:-/tmp}/paimon-oracle.XXXXXX")"
chmod 700 "$dir"
sock="$dir/oracle.sock"
# The server's working directory is the repository root: oracle-client.py serves a call naming
# relative paths only from there.
(cd "$ROOT" && exec java ${ORACLE_SERVE_JAVA_OPTS:-} -jar "$JAR" serve "$sock") </dev/null >"$dir/server.log" 2>&1 &
server=$!
stop() {
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 1 600); do
  [[ -S "$sock" ]] && break
  if ! kill -0 "$server" 2>/dev/null; then
    echo "with-oracle: the oracle server did not start:" >&2
    cat "$dir/server.log" >&2
    exit 1
  fi
  sleep 0.1
done
[[ -S "$sock" ]] || { echo "with-oracle: no socket after 60 s" >&2; exit 1; }
export PAIMON_ORACLE_SOCKET="$sock"
if [[ -z "${PAIMON_ORACLE_PYTHON:-}" ]] && command -v python3 >/dev/null; then
  PAIMON_ORACLE_PYTHON="$(python3 -c 'import sys; print(sys.executable)')"
  export PAIMON_ORACLE_PYTHON
fi
rc=0
"$@" || rc=$?
exit "$rc"
