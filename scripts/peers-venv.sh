# The 2.x-era peers' venv, sourced by the scripts that run them (test-peers.sh, test-serve.sh,
# test-cross-partition-peers.sh): pypaimon 2.1.0 and pypaimon-rust 0.4.0 from PyPI in
# $PEERS_VENV (default $CARGO_TARGET_DIR/peers-venv, else target/peers-venv).
#
# peers_venv: makes the venv and installs the two packages when missing, then prints the venv's
# python.
peers_venv() {
    local venv="${PEERS_VENV:-${CARGO_TARGET_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target}/peers-venv}"
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv" >&2 || return 1
    fi
    if ! "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(not (m.version("pypaimon") == "2.1.0" and m.version("pypaimon-rust") == "0.4.0"))' 2>/dev/null; then
        "$venv/bin/pip" install -q pypaimon==2.1.0 pypaimon-rust==0.4.0 >&2 || return 1
    fi
    echo "$venv/bin/python"
}
