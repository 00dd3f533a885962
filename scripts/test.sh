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
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${SKIP_JAVA:-0}" == 1 ]]; then
    export PAIMON_ACCEPTANCE_NO_JAVA=1
else
    echo "== Java's rows for the paimon-cpp tables"
    scripts/interop.sh --dump-only
fi

# paimon-cli's `ballista` feature: paimon-ballista's cluster test runs `paimon sql --scheduler`
# with the `paimon` binary this build makes (nothing depends on paimon-cli to build it so).
echo "== cargo test --workspace --features paimon-cli/ballista"
cargo test --workspace --features paimon-cli/ballista --locked

echo "== Rust examples (crates/paimon-rs/examples, crates/paimon-datafusion/examples, built by the cargo test above)"
for ex in read plan_and_read_split write_commit compaction_tasks datafusion_sql; do
    echo "-- example $ex"
    "${CARGO_TARGET_DIR:-target}/debug/examples/$ex" | tail -3
done

echo "== Python package (bindings/python)"
scripts/test-python.sh

if [[ "${SKIP_JAVA:-0}" != 1 ]]; then
    echo "== cross-language round trips"
    scripts/interop.sh --round-trips-only
fi
