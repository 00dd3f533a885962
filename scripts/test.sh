#!/usr/bin/env bash
# The whole test suite: every crate's unit, integration and doc tests, then the cross-language
# round trips against the Java oracle (scripts/interop.sh). Needs ../shared/testdata beside the
# repository, Rust, and Java 17 with Maven (for the oracle). Builds once into ./target.
# SKIP_INTEROP=1 runs the Rust tests only.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test --workspace"
cargo test --workspace --locked

if [[ "${SKIP_INTEROP:-0}" != 1 ]]; then
    echo "== interop round trips (Java oracle)"
    scripts/interop.sh
fi
