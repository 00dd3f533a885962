#!/usr/bin/env bash
# The Python package's tests: builds bindings/python into a venv (debug, sharing the cargo
# target dir, so the Rust crates compiled by `cargo test --workspace` are reused) and runs
# pytest under bindings/python/tests. Needs the `paimon` binary of the same target dir (its
# compare-rows checks rows against Java's). Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
export CARGO_TARGET_DIR="$target"
venv="$target/py-venv"
start=$SECONDS
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv"
fi
# datafusion: the major of the workspace's datafusion-ffi (an FFI struct layout is per major).
"$venv/bin/pip" install -q "maturin==1.16.*" pyarrow pytest pandas "ray[data]==2.60.0" \
    "datafusion>=55,<56"
[[ "${1:-}" == --prepare ]] && { echo "test-python: prepared"; exit 0; }
source scripts/workspace-build.sh
ws_paimon >/dev/null
(cd bindings/python && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
    "$venv/bin/maturin" develop --quiet --locked)
export RAY_USAGE_STATS_ENABLED=0 RAY_DISABLE_DOCKER_CPU_WARNING=1
rc=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider bindings/python/tests || rc=$?
echo "python tests took $((SECONDS - start)) s"
# pytest exits 5 when it collected nothing: that is a failure here, not a pass.
exit "$rc"
