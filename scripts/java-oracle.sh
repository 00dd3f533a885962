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

exec java ${ORACLE_JAVA_OPTS:-} -jar "$JAR" "$@"
