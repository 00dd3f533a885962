#!/usr/bin/env bash
# The JDBC catalog's tests against a real PostgreSQL: installs Debian's `postgresql` when
# missing, starts a throwaway cluster (initdb in a temp dir, owned by the unprivileged
# `postgres` user, listening on 127.0.0.1 only, password auth), runs the JDBC tests of
# paimon-rs (Java's JdbcCatalog through the oracle jar beside ours) and the CLI with the
# connection in PAIMON_JDBC_TEST_URI / _USER / _PASSWORD, then stops and removes the cluster.
# PAIMON_JDBC_TEST_REQUIRED=1 makes a test without the connection fail instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

bindir=""
for d in /usr/lib/postgresql/*/bin; do [[ -x "$d/initdb" ]] && bindir="$d"; done
if [[ -z "$bindir" ]]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    for d in /usr/lib/postgresql/*/bin; do [[ -x "$d/initdb" ]] && bindir="$d"; done
fi
[[ -n "$bindir" ]] || { echo "test-jdbc: no PostgreSQL server binaries" >&2; exit 1; }
echo "test-jdbc: PostgreSQL ready after $((SECONDS - start)) s ($bindir)"
[[ "${1:-}" == --prepare ]] && { echo "test-jdbc: prepared"; exit 0; }

# initdb refuses root: the cluster belongs to an unprivileged user.
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    as_pg=(runuser -u postgres --)
fi
dir="$(mktemp -d /tmp/paimon-jdbc-pg.XXXXXX)"
password="pw-$RANDOM$RANDOM"
printf '%s\n' "$password" >"$dir/pwfile"
[[ ${#as_pg[@]} -gt 0 ]] && chown -R postgres "$dir"
cleanup() {
    "${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT
"${as_pg[@]}" "$bindir/initdb" -D "$dir/data" -U paimon --pwfile="$dir/pwfile" \
    --auth=scram-sha-256 -E UTF8 >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"${as_pg[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null
PGPASSWORD="$password" "$bindir/psql" -q -h 127.0.0.1 -p "$port" -U paimon -d postgres \
    -c 'CREATE DATABASE paimon_catalog' >/dev/null
echo "test-jdbc: cluster on 127.0.0.1:$port after $((SECONDS - start)) s"

export PAIMON_JDBC_TEST_URI="jdbc:postgresql://127.0.0.1:$port/paimon_catalog"
export PAIMON_JDBC_TEST_USER=paimon PAIMON_JDBC_TEST_PASSWORD="$password"
export PAIMON_JDBC_TEST_REQUIRED=1
rc=0
# The feature set of scripts/test.sh's workspace build (the CLI turns on `jdbc`), so the two test
# binaries come from that build and nothing is compiled twice. One persistent Java oracle answers
# the Java calls (scripts/with-oracle.sh).
source scripts/workspace-build.sh
scripts/with-oracle.sh cargo test "${WS_CARGO_ARGS[@]}" --test jdbc_catalog --test catalog_jdbc || rc=$?
echo "test-jdbc: took $((SECONDS - start)) s"
exit "$rc"
