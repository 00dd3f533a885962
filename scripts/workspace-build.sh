# The one debug build every test script uses, sourced by them and by scripts/test.sh.
#
# `cargo test -p X` and `cargo build -p X` resolve features for X alone, so the dependencies X
# shares with the rest of the workspace (tokio, hyper, serde, arrow-flight, ...) and the paimon
# crates above them compile a second time with other features, and the `paimon` binary is
# relinked without Ballista (then relinked back by the next script that asks for the workspace's).
# Through these functions nothing compiles twice: after scripts/test.sh they only check that the
# build is fresh.

#
# The Python bindings are left out: maturin builds them (scripts/test-python.sh) with pyo3's
# configuration of its own (PYO3_CONFIG_FILE, PYO3_BUILD_EXTENSION_MODULE) and `-C strip=symbols`,
# so a workspace build of them was compiled again by maturin every time, pyo3 with it. maturin's
# `cargo rustc` inherits RUSTC_WORKSPACE_WRAPPER, so CI lints the bindings as it builds them there.
WS_CARGO_ARGS=(--workspace --exclude paimon-python --features paimon-cli/ballista --locked)

# ws_artifact PACKAGE TARGET KIND: reads cargo's JSON messages on stdin and prints the executable
# of PACKAGE's target TARGET of kind KIND (bin or test). PACKAGE is a directory under crates/.
ws_artifact() {
  python3 -c '
import json, os, sys
pkg, target, kind = sys.argv[1:4]
found = None
# Reads every message: leaving early would close the pipe on a cargo still building.
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") != "compiler-artifact" or not m.get("executable"):
        continue
    t = m["target"]
    if target == "lib":  # the unit tests of the library: a lib target built in test mode
        wanted = "lib" in t["kind"] and m["profile"]["test"]
    else:
        wanted = t["name"] == target and kind in t["kind"]
    if wanted and m["manifest_path"].endswith(os.sep + pkg + os.sep + "Cargo.toml"):
        found = m["executable"]
if found is None:
    sys.exit("no %s target %s of package %s in the workspace build" % (kind, target, pkg))
print(found)
' "$@"
}

# ws_paimon: builds the workspace's `paimon` binary (a no-op after scripts/test.sh) and prints its path.
ws_paimon() {
  cargo build "${WS_CARGO_ARGS[@]}" --bin paimon -q --message-format=json-render-diagnostics \
    | ws_artifact paimon-cli paimon bin
}

# ws_test_bin PACKAGE TARGET: builds the workspace's tests (a no-op after scripts/test.sh) and
# prints the path of PACKAGE's test executable TARGET (`integration`, `acceptance`, ...; `lib`
# for the library's unit tests).
ws_test_bin() {
  cargo test "${WS_CARGO_ARGS[@]}" --no-run -q --message-format=json-render-diagnostics \
    | ws_artifact "$1" "$2" test
}

# ws_test PACKAGE TARGET [TEST ARGS...]: runs that test executable from PACKAGE's directory, as
# `cargo test -p PACKAGE --test TARGET -- TEST ARGS` would, without a build of PACKAGE alone.
ws_test() {
  local bin
  bin=$(ws_test_bin "$1" "$2") || return 1
  (cd "$(dirname "${BASH_SOURCE[0]}")/../crates/$1" && "$bin" "${@:3}")
}
