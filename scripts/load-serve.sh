#!/usr/bin/env bash
# Load on `paimon serve` (issue 44) from clients nobody here wrote: CLIENTS (default 32) threads
# for SECONDS (default 60; `scripts/load-serve.sh CLIENTS SECONDS`) mixing pypaimon 2.1 REST commits and loadTable calls, pyarrow.flight
# Flight SQL queries and scans read from a worker, with Java 1.4.2's RESTCatalog committing
# beside them; then checks that no client saw an error and no commit was lost or doubled
# (snapshots and rows per table), reports the server's and the worker's peak RSS, and kills the
# worker while a client reads from it (the client must get an error, not a short clean stream).
# See crates/paimon-serve/tests/python/load_clients.py.
#
#   scripts/load-serve.sh [CLIENTS [SECONDS]]     e.g. scripts/load-serve.sh 8 10 (CI's short run)
#
# BIG_ROWS (default 1000000): rows of the table read while its worker is killed.
#
# Uses the peers venv (scripts/peers-venv.sh; PEERS_VENV to choose) and the workspace's `paimon`
# (PAIMON: use that binary instead). Prints one JSON line of results; exits non-zero on failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
source "$ROOT/scripts/peers-venv.sh"
PY=$(peers_venv)
if [[ -z "${PAIMON:-}" ]]; then
    source "$ROOT/scripts/workspace-build.sh"
    PAIMON=$(ws_paimon)
fi
PAIMON="$PAIMON" ORACLE="$ROOT/scripts/java-oracle.sh" CLIENTS="${1:-32}" LOAD_SECONDS="${2:-60}" \
    "$PY" crates/paimon-serve/tests/python/load_clients.py
