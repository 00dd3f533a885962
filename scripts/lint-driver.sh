#!/usr/bin/env bash
# The compiler of the workspace's own crates in CI's one debug build (cargo's
# RUSTC_WORKSPACE_WRAPPER, set by .ci/run): clippy-driver compiles and lints each crate (with
# CLIPPY_ARGS, as `cargo clippy` does), then rustdoc documents each library and binary with
# `-D warnings`, as `RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps` would.
#
# rustdoc reads the dependencies' metadata from the .rlib files this build has just made, so the
# docs check needs no build of its own: `cargo doc` compiled every dependency once more in check
# mode, about a quarter hour of CPU on a fresh 2-core machine. Test harnesses (but a binary's),
# examples and build scripts are not documented, as `cargo doc` leaves them. The HTML goes to
# $CARGO_TARGET_DIR/doc-check/<crate>-<hash>, one directory per compilation, so two at once never
# write the same files.
#
# Called as cargo calls a wrapper: lint-driver.sh RUSTC ARGS...
set -u
rustc=$1
shift
driver="$(dirname "$rustc")/clippy-driver"
[[ -x "$driver" ]] || driver="$(rustup which clippy-driver)"
"$driver" "$rustc" "$@" || exit $?

# Which compilation this is, and the arguments rustdoc takes from it.
doc=()
src=""
name=""
suffix=""
out=""
documented=1
test=0
while (($#)); do
    a=$1
    shift
    case $a in
    --test) test=1 ;;
    --print | --print=*) documented=0 ;;
    --crate-name) name=$1 doc+=("$a" "$1"); shift ;;
    --out-dir) out=$1; shift ;;
    # rustc's outputs and codegen options; rustdoc writes HTML and its own JSON diagnostics.
    --emit | --json | --error-format) shift ;;
    --emit=* | --json=* | --error-format=*) ;;
    -C)
        case $1 in extra-filename=*) suffix=${1#extra-filename=} ;; esac
        shift
        ;;
    -C*) ;;
    --cap-lints) doc+=("$a" "$1"); shift ;;
    *.rs) src=$a doc+=("$a") ;;
    *) doc+=("$a") ;;
    esac
done
case $src in
*/examples/* | */tests/* | */benches/* | */build.rs | build.rs | "") documented=0 ;;
esac
[[ $name == build_script_* ]] && documented=0
# A test harness is not documented, except a binary's: `cargo test` builds a binary only as the
# harness of its unit tests unless an integration test runs it, and `cargo doc` documents it.
if ((test)); then
    case $src in
    main.rs | */main.rs | */src/bin/*.rs) doc+=(--crate-type bin) ;;
    *) documented=0 ;;
    esac
fi
((documented)) || exit 0
# `cargo doc` documents a binary's private items too (nothing else of it is public), links to
# them allowed.
for ((i = 0; i + 1 < ${#doc[@]}; i++)); do
    if [[ ${doc[i]} == --crate-type && ${doc[i + 1]} == bin ]]; then
        doc+=(--document-private-items -A rustdoc::private-intra-doc-links)
        break
    fi
done

target_dir="${CARGO_TARGET_DIR:-${out%/debug/deps}}"
rustdoc="$(dirname "$rustc")/rustdoc"
[[ -x "$rustdoc" ]] || rustdoc=rustdoc
"$rustdoc" "${doc[@]}" -o "$target_dir/doc-check/$name$suffix" -D warnings \
    --error-format=human || {
    echo "lint-driver: rustdoc -D warnings failed for $name ($src)" >&2
    exit 1
}
