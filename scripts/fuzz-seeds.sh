#!/usr/bin/env bash
# Replays the committed inputs of every fuzz target once, without fuzzing, on the stable
# toolchain: each target binary (a plain debug build of fuzz/, no sanitizer, no coverage) runs
# over fuzz/seeds/<target>/* and fuzz/regressions/<target>/*, so the targets' checks (round
# trips, the path rule of issue 39 over decoded splits, tasks and messages, no panic) hold on
# every seed and every past crash. libFuzzer runs the files given on its command line once
# each and exits non-zero on the first failure.
#
#   scripts/fuzz-seeds.sh [TARGET...]      default: every target
#
# FUZZ_FEATURES picks the fuzz crate's features (default `meta,data,catalogs`: hive_thrift and dlf_token too; `engine` adds
# scan_node_decode, a DataFusion build; `serve` adds split_ticket, rest_request and statement_handle, paimon-serve
# over DataFusion); targets needing a feature left out are skipped with a line saying so. Builds into fuzz/target (git-ignored). Prints one line per target and
# `N passed, M failed` last; exits non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
source "$ROOT/scripts/test-lib.sh"

FEATURES=${FUZZ_FEATURES:-meta,data,catalogs}
export CARGO_TARGET_DIR=$ROOT/fuzz/target
mkdir -p "$CARGO_TARGET_DIR"

# The features a target needs (as scripts/fuzz.sh builds them).
features_of() {
  case $1 in
    manifest_decode | manifest_orc | snapshot_json | tag_json | file_index) echo meta ;;
    deletion_vector | data_file) echo data ;;
    table_dir) echo meta data ;;
    scan_node_decode) echo engine ;;
    hive_thrift | dlf_token) echo catalogs ;;
    split_ticket | rest_request | statement_handle) echo serve ;;
  esac
}
# Whether the build has feature $1 (`engine` turns on `meta` and `data`; `catalogs` turns on
# `meta`; `serve` turns on all the others).
have() {
  [[ ",$FEATURES," == *",$1,"* || ",$FEATURES," == *",serve,"* ]] && return 0
  case $1 in
    meta) [[ ",$FEATURES," == *",engine,"* || ",$FEATURES," == *",catalogs,"* ]] ;;
    data) [[ ",$FEATURES," == *",engine,"* ]] ;;
    *) return 1 ;;
  esac
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^name = "\(.*\)"$/\1/p' fuzz/Cargo.toml | grep -v -e '^paimon-fuzz$' -e '^make_seeds$')
fi

echo "== cargo build --manifest-path fuzz/Cargo.toml --features $FEATURES --bins"
if ! cargo build --locked --manifest-path fuzz/Cargo.toml --features "$FEATURES" --bins >"$CARGO_TARGET_DIR/seeds-build.log" 2>&1; then
  fail "build the fuzz targets: $(grep -E '^error' -A5 "$CARGO_TARGET_DIR/seeds-build.log" | head -20)"
  finish
fi

for t in "${targets[@]}"; do
  missing=
  for f in $(features_of "$t"); do have "$f" || missing=$f; done
  if [ -n "$missing" ]; then
    echo "skip $t (needs the $missing feature)"
    continue
  fi
  inputs=()
  for d in "fuzz/seeds/$t" "fuzz/regressions/$t"; do
    [ -d "$d" ] && for x in "$d"/*; do [ -f "$x" ] && inputs+=("$x"); done
  done
  if [ ${#inputs[@]} -eq 0 ]; then
    echo "skip $t (no seeds or regressions)"
    continue
  fi
  log="$CARGO_TARGET_DIR/seeds-$t.log"
  tables=$(mktemp -d)
  if FUZZ_TABLE_DIR=$tables "$CARGO_TARGET_DIR/debug/$t" "${inputs[@]}" >"$log" 2>&1; then
    pass "$t: ${#inputs[@]} inputs"
  else
    fail "$t: $(grep -E '^Running|panicked|ERROR' "$log" | tail -3)"
  fi
  rm -rf "$tables"
done
finish
