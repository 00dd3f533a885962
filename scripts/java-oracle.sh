#!/usr/bin/env bash
# Runs the Java reference oracle (interop/java), building its jar first when it is missing or
# older than the sources. Usage: scripts/java-oracle.sh CMD ARGS...   (see interop/java/README.md)
# Build output goes to stderr; stdout is the command's own output.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROJ="$ROOT/interop/java"
JAR="$PROJ/target/paimon-oracle.jar"

needs_build() {
  [[ ! -f "$JAR" ]] && return 0
  [[ -n "$(find "$PROJ/pom.xml" "$PROJ/src" -newer "$JAR" -print -quit)" ]]
}

if needs_build; then
  mkdir -p "$PROJ/target"
  # One build at a time when several oracles start together.
  exec 9>"$PROJ/target/.build.lock"
  flock 9
  if needs_build; then
    echo "java-oracle: building $JAR" >&2
    (cd "$PROJ" && { mvn -q -B -o package -DskipTests 1>&2 2>/dev/null \
      || mvn -q -B package -DskipTests 1>&2; })
  fi
  flock -u 9
fi

# A persistent oracle (scripts/with-oracle.sh) answers the call when one is running, was started
# from the current jar, and no JVM options were asked for; the client declines (75) when the socket
# is gone or a relative path might mean something else in the server's directory.
SOCK="${PAIMON_ORACLE_SOCKET:-}"
# PAIMON_ORACLE_PYTHON is the interpreter itself (a pyenv shim costs ~0.5 s a call); -S skips
# site-packages, which the client does not need.
PY="${PAIMON_ORACLE_PYTHON:-python3}"
if [[ -n "$SOCK" && -S "$SOCK" && ! "$JAR" -nt "$SOCK" && -z "${ORACLE_JAVA_OPTS:-}" ]] \
  && command -v "$PY" >/dev/null; then
  rc=0
  "$PY" -S "$ROOT/scripts/oracle-client.py" "$SOCK" "$@" || rc=$?
  [[ $rc -ne 75 ]] && exit "$rc"
fi

exec java ${ORACLE_JAVA_OPTS:-} -jar "$JAR" "$@"
