#!/usr/bin/env bash
# Flight SQL (issue 44) against clients nobody here wrote: ADBC's adbc-driver-flightsql and
# pyarrow.flight from PyPI, the Arrow Flight SQL JDBC driver from Maven Central (the Java
# oracle's flight-sql-query / flight-sql-tables, scripts/java-oracle.sh builds it), and
# `paimon read-split` on the splits of the scan tickets
# (crates/paimon-serve/tests/python/flight_clients.py), over the bundled fixtures warehouse.
#
# Makes a venv (default target/flight-venv; FLIGHT_VENV to choose) with the clients, builds the
# `paimon` CLI (its `paimon serve --flight-bind` is the server), and exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
VENV="${FLIGHT_VENV:-$CARGO_TARGET_DIR/flight-venv}"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import adbc_driver_flightsql, pyarrow.flight' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q adbc-driver-flightsql==1.13.0 adbc-driver-manager==1.13.0 pyarrow
fi
[[ "${1:-}" == --prepare ]] && { echo "test-flight: prepared"; exit 0; }

source "$ROOT/scripts/workspace-build.sh"
PAIMON=$(ws_paimon) \
WAREHOUSE="$ROOT/fixtures/warehouse" \
ORACLE="$ROOT/scripts/java-oracle.sh" \
    "$VENV/bin/python" crates/paimon-serve/tests/python/flight_clients.py
