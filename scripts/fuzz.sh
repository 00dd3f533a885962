#!/usr/bin/env bash
# Runs the cargo-fuzz targets in fuzz/ one after another (never in parallel).
#
#   scripts/fuzz.sh SECONDS [TARGET...]     default: every target in fuzz/Cargo.toml
#
# For each target: replays fuzz/regressions/<target>/ (every past crash input), then fuzzes for
# SECONDS with the working corpus fuzz/corpus/<target>/ (git-ignored, grows across runs), the
# committed seeds fuzz/seeds/<target>/ and, when ../shared/testdata exists, a read-only temporary
# copy of the matching shared test files. Crash inputs land in fuzz/artifacts/<target>/.
# Prints one summary line per target (runs executed, crashes) and exits 1 if any target crashed.
#
# Environment: FUZZ_SKIP_KNOWN=1 makes targets skip the input classes of open findings (see
# fuzz/README.md) so a long run looks for new ones; FUZZ_KEEP_GOING=1 keeps fuzzing after a
# crash (libFuzzer fork mode, -ignore_crashes) to collect every distinct crash in one run;
# FUZZ_ARGS adds libFuzzer flags. FUZZ_FEATURES replaces the fuzz crate's features the script
# picks (e.g. `catalogs` alone for hive_thrift and dlf_token); FUZZ_BUILD_ARGS adds
# `cargo fuzz build` flags (e.g. `-s none`: no sanitizer, still coverage-guided, for the long
# DataFusion build of the `serve` targets; `--dev` builds and runs the debug profile).
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/fuzz.sh SECONDS [TARGET...]" >&2
    exit 2
fi
seconds=$1
shift

if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz" >&2
    cargo install cargo-fuzz --locked
fi

all_targets=$(cargo +nightly fuzz list --fuzz-dir fuzz | grep -v '^make_seeds$')
targets=("$@")
named=1
if [[ ${#targets[@]} -eq 0 ]]; then
    named=0
    mapfile -t targets <<<"$all_targets"
fi
for t in "${targets[@]}"; do
    if ! grep -qx "$t" <<<"$all_targets"; then
        echo "unknown target '$t'; targets: $(tr '\n' ' ' <<<"$all_targets")" >&2
        exit 2
    fi
done

# Targets over paimon-meta / paimon-data need the fuzz crate's `meta` / `data` features.
feature_of() {
    case $1 in
        manifest_decode | manifest_orc | snapshot_json | tag_json | file_index) echo meta ;;
        deletion_vector | data_file) echo data ;;
        table_dir) echo meta,data ;;
        scan_node_decode) echo engine ;;
        hive_thrift | dlf_token) echo catalogs ;;
        split_ticket | rest_request | statement_handle) echo serve ;;
    esac
}
needed=""
for t in "${targets[@]}"; do
    f=$(feature_of "$t")
    [[ -n $f && " $needed " != *" $f "* ]] && needed="$needed $f"
done
needed=$(echo $needed | tr ' ' ',')

# Release build with debug assertions and overflow checks, AddressSanitizer (cargo-fuzz defaults).
# Built with every feature so the build is the same whichever targets run; when paimon-meta or
# paimon-data does not compile, targets that do not need them still run.
# Targets named on the command line are built one by one (not every binary of the crate).
build() {
    # shellcheck disable=SC2086
    if [[ $named -eq 1 ]]; then
        for t in "${targets[@]}"; do
            cargo +nightly fuzz build --fuzz-dir fuzz ${FUZZ_BUILD_ARGS:-} "$@" "$t" || return 1
        done
    else
        cargo +nightly fuzz build --fuzz-dir fuzz ${FUZZ_BUILD_ARGS:-} "$@"
    fi
}
# `engine` (paimon-datafusion, so DataFusion) and `serve` (paimon-serve over it) only when a
# chosen target needs them; if that does not build, their targets are dropped and the others
# still run.
# `catalogs` (paimon-meta's Hive and REST clients) only when a chosen target needs it.
base=meta,data
[[ ",$needed," == *",catalogs,"* ]] && base=meta,data,catalogs
built=""
if [[ -n ${FUZZ_FEATURES:-} ]]; then
    build --features "$FUZZ_FEATURES" || exit 2
    built=1
fi
for big in serve engine; do
    [[ -n $built || ",$needed," != *",$big,"* ]] && continue
    extra=engine
    [[ $big == serve ]] && extra=engine,serve
    if build --features meta,data,catalogs,$extra; then
        built=1
    else
        echo "build with feature '$big' failed; dropping the targets that need it" >&2
        mapfile -t targets < <(for t in "${targets[@]}"; do [[ $(feature_of "$t") != "$big" ]] && echo "$t"; done)
        needed=$(echo "$needed" | tr ',' '\n' | { grep -vx "$big" || true; } | paste -sd, -)
    fi
done
if [[ -z $built ]] && ! build --features "$base"; then
    if [[ $# -gt 0 && -n $needed ]]; then
        echo "build with features '$needed' failed; the targets that need them cannot run" >&2
        exit 2
    fi
    echo "paimon-meta/paimon-data do not build; running the targets that do not need them" >&2
    mapfile -t targets < <(for t in "${targets[@]}"; do [[ -z $(feature_of "$t") ]] && echo "$t"; done)
    build
fi
bin_dir=fuzz/target/x86_64-unknown-linux-gnu/release
[[ " ${FUZZ_BUILD_ARGS:-} " == *" --dev "* || " ${FUZZ_BUILD_ARGS:-} " == *" -D "* ]] &&
    bin_dir=fuzz/target/x86_64-unknown-linux-gnu/debug

shared=../shared/testdata
extra_root=$(mktemp -d "${TMPDIR:-/tmp}/paimon-fuzz-extra.XXXXXX")
# table_dir writes each input's table here: in memory (/dev/shm) when there is one.
if [[ -d /dev/shm && -w /dev/shm ]]; then
    table_work=$(mktemp -d /dev/shm/paimon-fuzz-table.XXXXXX)
else
    table_work="$extra_root/table_dir-work"
fi
export FUZZ_TABLE_DIR="$table_work"
trap 'rm -rf "$extra_root" "$table_work"' EXIT

# Copies shared test files matching find(1) predicates into a temporary read-only corpus dir;
# with MAGIC set, only files starting with those bytes.
extra_corpus() {
    local t=$1 dir="$extra_root/$1" i=0
    shift
    [[ -d $shared ]] || return 0
    mkdir -p "$dir"
    while IFS= read -r -d '' f; do
        if [[ -n ${MAGIC:-} && $(head -c ${#MAGIC} "$f" | tr -d '\0') != "$MAGIC" ]]; then
            continue
        fi
        cp "$f" "$dir/$((i++))-$(basename "$f")"
    done < <(find "$shared" -type f -size -64k "$@" -print0 2>/dev/null)
    [[ $i -gt 0 ]] && echo "$dir"
    return 0
}
extra_for() {
    case $1 in
        split_decode)
            extra_corpus "$1" \( -path '*java-compat/datasplit-*' -o -path '*java-compat/split-v1-*' \
                -o -path '*/data_splits/*' -o -path '*/data-splits/*' \) ;;
        commit_message_decode)
            extra_corpus "$1" \( -path '*java-compat/manifest-committable-*' -o -path '*/commit_messages/*' \) ;;
        schema_json) extra_corpus "$1" -path '*/schema/schema-*' ;;
        snapshot_json) extra_corpus "$1" -path '*/snapshot/snapshot-*' ;;
        tag_json) extra_corpus "$1" -path '*/tag/tag-*' ;;
        manifest_decode) MAGIC=Obj extra_corpus "$1" -path '*/manifest/*' ;;
        manifest_orc) MAGIC=ORC extra_corpus "$1" -path '*/manifest/*' ;;
        deletion_vector) extra_corpus "$1" \( -path '*java-compat/dvindex-*' -o -path '*/index/index-*' \) ;;
    esac
}

# Extracts the executed-run count from a libFuzzer log.
runs_of() {
    local n
    # -a: a log quoting a crashing input's bytes is binary to grep.
    n=$(grep -ao 'stat::number_of_executed_units: [0-9]*' "$1" | tail -1 | awk '{print $2}')
    [[ -z $n ]] && n=$(grep -aEo '^Done [0-9]+ runs' "$1" | tail -1 | awk '{print $2}')
    [[ -z $n ]] && n=$(grep -aEo '^#[0-9]+' "$1" | tail -1 | tr -d '#')
    echo "${n:-0}"
}

summary=()
failed=0
for t in "${targets[@]}"; do
    bin="$bin_dir/$t"
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
    log="fuzz/artifacts/$t/last-run.log"
    regress="ok"

    # 1. Every committed regression input (a past crash) must now pass; replayed without
    #    FUZZ_SKIP_KNOWN so that open findings keep failing here until they are fixed.
    : >"fuzz/artifacts/$t/regressions.log"
    bad=0
    for f in fuzz/regressions/"$t"/*; do
        [[ -f $f ]] || continue
        if ! env -u FUZZ_SKIP_KNOWN "$bin" -timeout=10 -rss_limit_mb=2048 "$f" \
            >>"fuzz/artifacts/$t/regressions.log" 2>&1; then
            echo "    regression still fails: $f" >&2
            bad=$((bad + 1))
        fi
    done
    if [[ $bad -gt 0 ]]; then
        regress="$bad FAILED (fuzz/artifacts/$t/regressions.log)"
        failed=1
    fi

    # 2. Fuzz. The first corpus dir receives new inputs; the others are only read.
    dirs=("fuzz/corpus/$t")
    [[ -d fuzz/seeds/$t ]] && dirs+=("fuzz/seeds/$t")
    extra=$(extra_for "$t")
    [[ -n $extra ]] && dirs+=("$extra")
    before=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
    keep=()
    [[ ${FUZZ_KEEP_GOING:-0} == 1 ]] && keep=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    echo "== $t: fuzzing ${seconds}s over ${dirs[*]}" >&2
    set +e
    # shellcheck disable=SC2086
    "$bin" "${dirs[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$t/" "${keep[@]}" ${FUZZ_ARGS:-} \
        >"$log" 2>&1
    rc=$?
    set -e
    after=$(find "fuzz/artifacts/$t" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l)
    crashes=$((after - before))
    [[ $rc -ne 0 && $crashes -eq 0 ]] && crashes=1
    [[ $crashes -gt 0 ]] && failed=1
    runs=$(runs_of "$log")
    line=$(printf '%-18s seconds=%-5s runs=%-10s crashes=%-3s regressions=%s' "$t" "$seconds" "$runs" "$crashes" "$regress")
    summary+=("$line")
    echo "$line" >&2
    if [[ $crashes -gt 0 ]]; then
        grep -aE 'panicked at|^SUMMARY|Test unit written to' "$log" | head -6 | sed 's/^/    /' >&2
    fi
done

echo
echo "fuzz summary ($(date -u +%Y-%m-%dT%H:%MZ), log per target in fuzz/artifacts/<target>/last-run.log):"
printf '%s\n' "${summary[@]}"
exit $failed
