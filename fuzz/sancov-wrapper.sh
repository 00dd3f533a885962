#!/usr/bin/env bash
# RUSTC_WRAPPER for a coverage-guided libFuzzer build on the stable toolchain, reusing a plain
# debug build of the fuzz crate: only the fuzz target binaries (sources under fuzz_targets/)
# and the crates named in FUZZ_COV_CRATES (crate names, space-separated; default the crates
# the catalog and serve targets fuzz) get SanitizerCoverage instrumentation (8-bit counters,
# PC table, comparison tracing), the flags cargo-fuzz passes; no sanitizer. Cargo does not
# rebuild a crate when the wrapper changes: touch the named crates' lib.rs (and the targets)
# before building into a copy of fuzz/target/debug. See fuzz/README.md.
rustc=$1
shift
crates=" ${FUZZ_COV_CRATES:-paimon_meta paimon_split paimon_serve} "
name="" src=""
prev=""
for a in "$@"; do
    [[ $prev == --crate-name ]] && name=$a
    [[ $a == *.rs ]] && src=$a
    prev=$a
done
if [[ -n $name && ($crates == *" $name "* || $src == *fuzz_targets/*) ]]; then
    exec "$rustc" "$@" -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
        -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
        -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares
fi
exec "$rustc" "$@"
