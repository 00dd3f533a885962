#!/usr/bin/env bash
# The whole test suite:
#   1. Java's expected rows for every paimon-cpp table (scripts/interop.sh --dump-only), which the
#      acceptance suite compares against;
#   2. every crate's unit, integration, golden-byte, property, acceptance and damage tests;
#   3. the Python package's pytest suite (scripts/test-python.sh);
#   4. the cross-language round trips (Java plans / paimon reads, paimon plans / Java reads).
# Needs ../shared/testdata beside the repository, Rust, and Java 17 with Maven (the oracle is
# built from Maven Central on first use). Builds once into ./target.
# SKIP_JAVA=1 runs only the Rust tests that need no Java (the paimon-cpp acceptance case is then
# reported as skipped).
# Java's answers come from one persistent oracle (scripts/with-oracle.sh) instead of one JVM per
# call; PAIMON_ORACLE_SERVE=0 starts a JVM per call as before (same answers, slower).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${SKIP_JAVA:-0}" != 1 && "${PAIMON_ORACLE_SERVE:-1}" == 1 && -z "${PAIMON_ORACLE_SOCKET:-}" ]]; then
    exec scripts/with-oracle.sh scripts/test.sh "$@"
fi
# Each part's header carries the seconds since the start (cargo test prints each binary's own time).
part() {
    echo "== [$SECONDS s] $*"
    if [ -n "${CI_STEP_LOG:-}" ]; then echo "     test.sh [$SECONDS s] $*" >>"$CI_STEP_LOG"; fi
}

if [[ "${SKIP_JAVA:-0}" == 1 ]]; then
    export PAIMON_ACCEPTANCE_NO_JAVA=1
else
    part "Java's rows for the paimon-cpp tables"
    scripts/interop.sh --dump-only
fi

# paimon-cli's `ballista` feature: paimon-ballista's cluster test runs `paimon sql --scheduler`
# with the `paimon` binary this build makes (nothing depends on paimon-cli to build it so).
# Many tests wait on the Java oracle, on the `paimon` binary or on a server they started: with
# two test threads on 2 cores the acceptance suite used one core's worth (269 s of CPU, JVM
# included, for a 267 s run), so each test binary runs twice as many tests as there are cores
# at once unless RUST_TEST_THREADS says otherwise. The binaries that measure memory hold one
# test each.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-$(( $(nproc) * 2 ))}"
source scripts/workspace-build.sh
part "cargo test ${WS_CARGO_ARGS[*]}"
cargo test "${WS_CARGO_ARGS[@]}"

part "Rust examples (crates/paimon-rs/examples, crates/paimon-datafusion/examples, built by the cargo test above)"
for ex in read plan_and_read_split write_commit compaction_tasks datafusion_sql; do
    echo "-- example $ex"
    "${CARGO_TARGET_DIR:-target}/debug/examples/$ex" | tail -3
done

part "Python package (bindings/python)"
scripts/test-python.sh

if [[ "${SKIP_JAVA:-0}" != 1 ]]; then
    part "cross-language round trips"
    scripts/interop.sh --round-trips-only
fi
part "done"
