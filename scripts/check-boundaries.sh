#!/usr/bin/env bash
# Checks the crate boundaries that make up the architecture (docs/architecture.md):
#   paimon-spec   depends on no paimon crate
#   paimon-format depends on paimon-spec only (the codecs: both planes use it)
#   paimon-split  depends on paimon-spec only
#   paimon-io     depends on no paimon crate
#   paimon-memory depends on no paimon crate
#   paimon-meta   never depends on paimon-data
#   paimon-data   never depends on paimon-meta
#   paimon-write  never depends on paimon-meta (the writers are data plane)
#   no library crate depends on an engine crate (paimon-datafusion, paimon-ballista, paimon-serve,
#   paimon-cli);
#   paimon-datafusion (an engine integration: both planes) never depends on paimon-ballista or
#   paimon-cli
#   paimon-serve (the service, an engine: both planes) never depends on paimon-cli
#   paimon-ballista (an engine integration too: both planes, through paimon-datafusion) never
#   depends on paimon-cli
#   paimon-rs (the facade: both planes) never depends on an engine crate or paimon-cli, and no
#   plane crate depends on it
#   no crate depends on paimon-cli, through normal, dev or build dependencies (paimon-ballista's
#   cluster test runs the `paimon` binary that the workspace build makes with
#   `--features paimon-cli/ballista`, scripts/workspace-build.sh)
# Prints one line per crate and exits 1 on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0
deps_of() {
    # Every paimon-* crate reachable from $1 through normal dependencies (dev-deps excluded).
    cargo tree -p "$1" -e normal --prefix none --format '{p}' 2>/dev/null \
        | awk '{print $1}' | { grep '^paimon-' || true; } | { grep -v "^$1\$" || true; } | sort -u | tr '\n' ' '
}
check() {
    local crate=$1; shift
    local deps; deps=$(deps_of "$crate")
    for forbidden in "$@"; do
        if [[ " $deps " == *" $forbidden "* ]]; then
            echo "FAIL $crate depends on $forbidden (deps: $deps)"
            fail=1
            return
        fi
    done
    echo "ok   $crate -> ${deps:-(none)}"
}
check paimon-spec paimon-format paimon-split paimon-io paimon-meta paimon-data paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-format paimon-split paimon-io paimon-memory paimon-meta paimon-data paimon-write paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-split paimon-format paimon-io paimon-meta paimon-data paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-io paimon-spec paimon-format paimon-split paimon-meta paimon-data paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-memory paimon-spec paimon-format paimon-split paimon-io paimon-meta paimon-data paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-meta paimon-data paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-data paimon-meta paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-write paimon-meta paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-rs paimon-cli paimon-datafusion paimon-ballista paimon-serve
check paimon-datafusion paimon-ballista paimon-cli
check paimon-ballista paimon-cli
check paimon-serve paimon-cli

# Who depends on paimon-cli, directly, through normal, dev and build dependencies (depth 1 of
# the inverted tree: `paimon-cli` itself, then its dependents): nothing may.
dependents=$(cargo tree --workspace -i paimon-cli -e normal,dev,build --depth 1 --prefix none \
        --format '{p}' 2>/dev/null | awk '{print $1}' | { grep -v '^paimon-cli$' || true; } \
        | sort -u | tr '\n' ' ')
for d in $dependents; do
    echo "FAIL $d depends on paimon-cli (nothing may: the CLI is a leaf)"
    fail=1
done
echo "ok   paimon-cli's dependents: ${dependents:-(none)}"
exit $fail
