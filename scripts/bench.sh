#!/usr/bin/env bash
# Read benchmarks of issue 6: every figure beside a baseline measured in the same run.
#
#   scripts/bench.sh [--quick] [--reps N] [--no-doc] [--only read|sql|python|write|compact|ballista[,...]]
#
# 1. Generates the benchmark tables once with the Java oracle (deterministic, seeded) into
#    .cache/bench/ (git-ignored): append_big, pk_big, append_orc, append_avro and the planning
#    table, twice: merged by Java (a few big manifests) and with manifest merging held off (one
#    small manifest per commit, as streaming writers leave it). Sizes: BENCH_ROWS (append_big,
#    default 20,000,000), BENCH_PK_ROWS (pk_big, default 5,000,000), BENCH_PLANNING_FILES
#    (default 100,000); --quick uses 2M / 1M / 20,000. BENCH_PAIMON_RUST_PY=PYTHON (a python
#    with `pypaimon-rust==0.4.0`) adds paimon-rust's planning of both tables as the baseline.
# 2. Builds `paimon` and `paimon-bench` (benches/) in release once.
# 3. Runs each figure N times (default 3, --quick 1), alternating ours and the baseline, keeps
#    the best wall and CPU time of each and the peak RSS (/usr/bin/time), and prints a table
#    figure | ours | baseline | ratio | goal | met?
# 4. Writes the table with the machine and the commands between the markers of
#    docs/benchmarks.md (text outside the markers is kept), unless --no-doc.
# 5. SQL (issue 12, its own markers `bench-sql`): `paimon sql` on append_big and pk_big against
#    DataFusion reading append_big's Parquet files directly (an external table in the same
#    `paimon sql` process) and, with BENCH_PAIMON_RUST_PY, paimon-rust 0.4's SQLContext.
#    `--only sql` runs only these (the read figures and the planning tables are skipped).
# 6. Python (issue 11, markers `bench-python`, scripts/bench-python.sh): the paimon_rs wheel
#    (built in release) against the CLI, pypaimon 2.1.0 and pypaimon-rust 0.4.0 (a bench venv
#    under .cache/bench), Ray Data reads against pypaimon's, and the wheel's size.
#    `--only` takes a comma-separated list of read, sql, python, write and ballista (default:
#    all but ballista).
# 7. Ballista (issue 12, markers `bench-ballista`, scripts/bench-ballista.sh), only when named in
#    `--only`: the SQL queries on a local cluster of two executors against `paimon sql` locally.
# 8. Write (issue 13, markers `bench-write`, scripts/bench-write.sh): TableWrite against the
#    parquet crate's ArrowWriter on append_big's and pk_big's rows, and commit latency with the
#    unmerged planning table's manifests in the table.
# 9. Compaction (issue 14, markers `bench-compact`, scripts/bench-compact.sh): full compaction
#    of pk_big against Java 1.4.2's, reads before and after, and the planning table compacted.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

QUICK=0
REPS=""
DOC=1
ONLY=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --reps) REPS="$2"; shift ;;
    --no-doc) DOC=0 ;;
    --only) ONLY="$2"; shift ;;
    *) echo "usage: scripts/bench.sh [--quick] [--reps N] [--no-doc] [--only read|sql|python|write|compact|ballista[,...]]" >&2; exit 2 ;;
  esac
  shift
done

# want PART: whether --only selects PART (read, sql or python); everything without --only.
want() { [[ -z $ONLY || ",$ONLY," == *",$1,"* ]]; }
# named PART: whether --only names PART (ballista runs only then).
named() { [[ ",$ONLY," == *",$1,"* ]]; }

if [[ $QUICK == 1 ]]; then
  ROWS=${BENCH_ROWS:-2000000}; PK_ROWS=${BENCH_PK_ROWS:-1000000}
  PLAN_FILES=${BENCH_PLANNING_FILES:-20000}; REPS=${REPS:-1}
else
  ROWS=${BENCH_ROWS:-20000000}; PK_ROWS=${BENCH_PK_ROWS:-5000000}
  PLAN_FILES=${BENCH_PLANNING_FILES:-100000}; REPS=${REPS:-3}
fi
PLAN_COMMITS=$(( PLAN_FILES / 100 ))

BENCH="$ROOT/.cache/bench"
TABLES="$BENCH/tables-${ROWS}-${PK_ROWS}"
PLANNING="$BENCH/planning-${PLAN_FILES}"
PLANNING_NM="$BENCH/planning-nomerge-${PLAN_FILES}"
mkdir -p "$BENCH"

TIME=/usr/bin/time
if [[ ! -x $TIME ]]; then
  echo "bench: /usr/bin/time is missing (apt-get install -y time)" >&2
  exit 1
fi

# ---------------------------------------------------------------- tables (once)
if [[ ! -f "$TABLES/.done" ]]; then
  echo "bench: writing tables into $TABLES (rows $ROWS, pk rows $PK_ROWS)" >&2
  rm -rf "$TABLES"
  scripts/java-oracle.sh write-bench-tables "$TABLES" --rows "$ROWS" --pk-rows "$PK_ROWS" >&2
  touch "$TABLES/.done"
fi
if { want read || want compact; } && [[ ! -f "$PLANNING/.done" ]]; then
  echo "bench: writing the planning table $PLANNING ($PLAN_FILES files, $PLAN_COMMITS commits)" >&2
  rm -rf "$PLANNING"
  scripts/java-oracle.sh write-planning-table "$PLANNING" --files "$PLAN_FILES" \
    --commits "$PLAN_COMMITS" >&2
  touch "$PLANNING/.done"
fi
if { want read || want write; } && [[ ! -f "$PLANNING_NM/.done" ]]; then
  echo "bench: writing $PLANNING_NM ($PLAN_FILES files, $PLAN_COMMITS unmerged manifests)" >&2
  rm -rf "$PLANNING_NM"
  scripts/java-oracle.sh write-planning-table "$PLANNING_NM" --files "$PLAN_FILES" \
    --commits "$PLAN_COMMITS" --format avro --no-manifest-merge >&2
  touch "$PLANNING_NM/.done"
fi

# ---------------------------------------------------------------- build (once)
# BENCH_BIN_DIR=DIR: use the `paimon` and `paimon-bench` in DIR instead of building (to compare
# a saved build against the current one).
if [[ -n "${BENCH_BIN_DIR:-}" ]]; then
  TARGET="$(cd "$BENCH_BIN_DIR" && pwd)"
else
  echo "bench: building release binaries" >&2
  if named ballista; then
    cargo build -q --release -p paimon-cli -p paimon-benches -p paimon-ballista \
      --features paimon-cli/ballista >&2
  else
    cargo build -q --release -p paimon-cli -p paimon-benches >&2
  fi
  TARGET="${CARGO_TARGET_DIR:-$ROOT/target}/release"
fi
PAIMON="$TARGET/paimon"
RAW="$TARGET/paimon-bench"

# ---------------------------------------------------------------- measuring
# run NAME CMD...: runs CMD once, records the best wall seconds in T[NAME], the best CPU
# seconds (user + sys) in C[NAME], the peak RSS in M[NAME] (max over runs, MB) and its stdout
# in O[NAME]. CPU time is what single-threaded figures compare: on a machine shared with other
# builds, wall time mostly measures the neighbours.
declare -A T C M O PYO
run() {
  local name="$1"; shift
  local res="$BENCH/.time" out s e secs cpu mb
  s=$(date +%s%N)
  out=$("$TIME" -f "%M %U %S" -o "$res" "$@")
  e=$(date +%s%N)
  secs=$(awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  mb=$(awk 'END { printf "%.0f", $1 / 1024 }' "$res")
  cpu=$(awk 'END { printf "%.3f", $2 + $3 }' "$res")
  O[$name]="$out"
  if [[ -z "${T[$name]:-}" ]] || awk -v a="$secs" -v b="${T[$name]}" 'BEGIN { exit !(a < b) }'; then
    T[$name]=$secs
  fi
  if [[ -z "${C[$name]:-}" ]] || awk -v a="$cpu" -v b="${C[$name]}" 'BEGIN { exit !(a < b) }'; then
    C[$name]=$cpu
  fi
  if [[ -z "${M[$name]:-}" ]] || (( mb > ${M[$name]} )); then
    M[$name]=$mb
  fi
}

# pair A CMD_A -- B CMD_B: alternates the two REPS times.
pair() {
  local a="$1"; shift
  local cmd_a=() cmd_b=()
  while [[ "$1" != "--" ]]; do cmd_a+=("$1"); shift; done
  shift
  local b="$1"; shift
  cmd_b=("$@")
  for ((i = 0; i < REPS; i++)); do
    run "$a" "${cmd_a[@]}"
    run "$b" "${cmd_b[@]}"
  done
}

field() { sed -n "s/.*$2=\([^ ]*\).*/\1/p" <<<"$1" | head -1; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b == 0 ? 0 : a / b) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }' && echo yes || echo no; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }' && echo yes || echo no; }

# write_doc_section DOC MARKER HEADING TEXT: replaces what stands between the MARKER:begin and
# MARKER:end comments of DOC with TEXT (which carries the markers), or appends HEADING and TEXT.
write_doc_section() {
  local docf="$1" marker="$2" heading="$3" gen="$4"
  if grep -q "<!-- $marker:begin" "$docf"; then
    awk -v gen="$gen" -v b="<!-- $marker:begin" -v e="<!-- $marker:end" '
      index($0, b) == 1 { print gen; skip = 1; next }
      index($0, e) == 1 { skip = 0; next }
      !skip { print }
    ' "$docf" >"$docf.tmp" && mv "$docf.tmp" "$docf"
  else
    { echo; echo "## $heading"; echo; echo "$gen"; } >>"$docf"
  fi
}

ROWS_OUT=()
row() { ROWS_OUT+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); echo "| $1 | $2 | $3 | $4 | $5 | $6 |" >&2; }

LOAD=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
A="$TABLES/append_big"
P="$TABLES/pk_big"
PROJ="id,d1,s1"

# single NUM LABEL OURS RAW GOAL: a 1-thread figure as CPU seconds (wall in brackets), ratio =
# baseline CPU / ours CPU (throughput), met when >= GOAL.
single() {
  local r
  r=$(div "${C[$4]}" "${C[$3]}")
  row "$1 $2, 1 thread: CPU s (wall s)" "${C[$3]} (${T[$3]})" "${C[$4]} (${T[$4]})" \
    "${r}x throughput" ">= ${5}x" "$(ge "$r" "$5")"
}

if want read; then
# 1. append full scan and projection, 1 thread, against the parquet crate.
pair ours_full "$PAIMON" read "$A" --format null --threads 1 -- raw_full "$RAW" raw "$A" --threads 1
single 1a "append_big full scan" ours_full raw_full 0.95
pair ours_proj "$PAIMON" read "$A" --select "$PROJ" --format null --threads 1 -- \
  raw_proj "$RAW" raw "$A" --select "$PROJ" --threads 1
single 1b "append_big 3 columns ($PROJ)" ours_proj raw_proj 0.95

# 2. 1 -> 2 threads (wall time: the only figure where wall is the point).
pair ours_full2 "$PAIMON" read "$A" --format null --threads 2 -- raw_full2 "$RAW" raw "$A" --threads 2
S_OURS=$(div "${T[ours_full]}" "${T[ours_full2]}")
S_RAW=$(div "${T[raw_full]}" "${T[raw_full2]}")
row "2 append_big full scan, 2 threads: wall s; ratio = speedup over 1 thread" "${T[ours_full2]} (${S_OURS}x)" \
  "${T[raw_full2]} (${S_RAW}x)" "${S_OURS}x (raw decoder on this machine now: ${S_RAW}x)" ">= 1.8x" \
  "$(ge "$S_OURS" 1.8)"

# 3. pk_big merge-on-read against decoding the same files.
pair ours_pk "$PAIMON" read "$P" --format null --threads 1 -- raw_pk "$RAW" raw "$P" --threads 1
R_PK=$(div "${C[ours_pk]}" "${C[raw_pk]}")
row "3 pk_big merge-on-read vs plain decode, 1 thread: CPU s (wall s)" \
  "${C[ours_pk]} (${T[ours_pk]})" "${C[raw_pk]} (${T[raw_pk]})" "${R_PK}x decode time" "< 1.5x" \
  "$(le "$R_PK" 1.5)"

# 4. planning.
for ((i = 0; i < REPS; i++)); do run plan "$RAW" plan "$PLANNING"; done
PLAN_MS=$(field "${O[plan]}" ms)
PLAN_N=$(field "${O[plan]}" files)
for ((i = 0; i < REPS; i++)); do run plan_small "$RAW" plan "$A"; done
row "4a plan $PLAN_N-file table, in-process (ms)" "$PLAN_MS" "-" \
  "$(awk -v a="$PLAN_MS" -v n="$PLAN_N" 'BEGIN { printf "%.1f us/file", a * 1000 / n }')" \
  "< 250 ms" "$(le "$PLAN_MS" 250)"
row "4b plan $PLAN_N-file table, process peak RSS (MB)" "${M[plan]}" "-" "-" "< 100 MB" \
  "$(le "${M[plan]}" 100)"
for ((i = 0; i < REPS; i++)); do run plan_nm "$RAW" plan "$PLANNING_NM"; done
NM_MS=$(field "${O[plan_nm]}" ms)
NM_N=$(field "${O[plan_nm]}" files)
# paimon-rust 0.4 through its Python binding: a catalog over a warehouse linking the table,
# timed from opening the table to the plan, best of 3 in one process.
PR_MS=(- -); PR_MB=(- -)
if [[ -n "${BENCH_PAIMON_RUST_PY:-}" ]]; then
  k=0
  for t in "$PLANNING" "$PLANNING_NM"; do
    wh=$(mktemp -d); mkdir "$wh/bench.db"; ln -s "$t" "$wh/bench.db/t"
    run "pr_$k" "$BENCH_PAIMON_RUST_PY" -c '
import sys, time
import pypaimon_rust.datafusion as pd
cat = pd.PaimonCatalog({"warehouse": sys.argv[1]})
best = None
for _ in range(3):
    s = time.perf_counter()
    plan = cat.get_table("bench.t").new_read_builder().new_scan().plan()
    ms = (time.perf_counter() - s) * 1e3
    best = ms if best is None else min(best, ms)
print(f"splits={len(plan)} ms={best:.1f}")
' "$wh"
    PR_MS[$k]=$(field "${O[pr_$k]}" ms); PR_MB[$k]=${M[pr_$k]}
    rm -rf "$wh"; k=$(( k + 1 ))
  done
  row "4a' same table, paimon-rust 0.4 (ms)" "$PLAN_MS" "${PR_MS[0]}" \
    "$(div "${PR_MS[0]}" "$PLAN_MS")x faster" ">= 2x" "$(ge "$(div "${PR_MS[0]}" "$PLAN_MS")" 2)"
fi
row "4c plan $NM_N-file table of $PLAN_COMMITS unmerged manifests, in-process (ms)" "$NM_MS" \
  "${PR_MS[1]}" "$([[ ${PR_MS[1]} == - ]] && echo - || echo "$(div "${PR_MS[1]}" "$NM_MS")x faster")" \
  ">= 2x paimon-rust, < 250 ms" "$(le "$NM_MS" 250)"
row "4d same, process peak RSS (MB)" "${M[plan_nm]}" "${PR_MB[1]}" "-" "< 100 MB" \
  "$(le "${M[plan_nm]}" 100)"

# 5. peak memory of read --format null (from the runs above).
row "5a append_big read --format null peak RSS (MB)" "${M[ours_full]}" "${M[raw_full]}" \
  "$(div "${M[ours_full]}" "${M[raw_full]}")x" "< 512 MB" "$(le "${M[ours_full]}" 512)"
row "5b pk_big read --format null peak RSS (MB)" "${M[ours_pk]}" "${M[raw_pk]}" \
  "$(div "${M[ours_pk]}" "${M[raw_pk]}")x" "< 1024 MB" "$(le "${M[ours_pk]}" 1024)"

# 6. a selective filter on the sorted id column: bytes read and time against the full scan.
SEL=$(( ROWS / 100 ))
PD_OUT=$("$RAW" pushdown "$A" --filter "id < $SEL")
PD_FULL=$(grep 'filter=false' <<<"$PD_OUT")
PD_SEL=$(grep 'filter=true' <<<"$PD_OUT")
B_FULL=$(field "$PD_FULL" data_bytes); B_SEL=$(field "$PD_SEL" data_bytes)
FRAC=$(awk -v a="$B_SEL" -v b="$B_FULL" 'BEGIN { printf "%.2f", 100 * a / b }')
row "6a append_big 'id < $SEL' (1% of rows): data bytes read" "$B_SEL" "$B_FULL (full scan)" \
  "${FRAC}%" "small fraction (< 5%)" "$(le "$FRAC" 5)"
row "6b same filter: time (ms), rows" "$(field "$PD_SEL" ms), $(field "$PD_SEL" rows) rows" \
  "$(field "$PD_FULL" ms), $(field "$PD_FULL" rows) rows" \
  "$(div "$(field "$PD_SEL" ms)" "$(field "$PD_FULL" ms)")x" "-" "-"

# 6c. bytes fetched by ranged reads for the 3-column projection, against the files' sizes.
PJ_OUT=$("$RAW" pushdown "$A" --filter "id < $SEL" --select "$PROJ")
B_PROJ=$(field "$(grep 'filter=false' <<<"$PJ_OUT")" data_bytes)
B_FILES=$(find "$A" -path '*bucket-*' -name 'data-*' -printf '%s\n' | awk '{ s += $1 } END { print s }')
row "6c append_big 3 columns ($PROJ): data bytes fetched" "$B_PROJ" "$B_FILES (whole files)" \
  "$(awk -v a="$B_PROJ" -v b="$B_FILES" 'BEGIN { printf "%.1f%%", 100 * a / b }')" \
  "the columns' share" "-"

# 7. ORC and Avro against their own decoders.
for fmt in orc avro; do
  pair "ours_$fmt" "$PAIMON" read "$TABLES/append_$fmt" --format null --threads 1 -- \
    "raw_$fmt" "$RAW" raw "$TABLES/append_$fmt" --threads 1
  single 7 "append_$fmt full scan" "ours_$fmt" "raw_$fmt" 0.95
done

# 8. the many-file table read whole.
pair ours_many "$PAIMON" read "$PLANNING" --format null --threads 1 -- \
  raw_many "$RAW" raw "$PLANNING" --threads 1
R=$(div "${C[raw_many]}" "${C[ours_many]}")
row "8 read the $PLAN_N-file table whole, 1 thread: wall s (CPU s)" \
  "${T[ours_many]} (${C[ours_many]})" "${T[raw_many]} (${C[raw_many]})" \
  "${R}x throughput (CPU)" "< 20 s" "$(le "${T[ours_many]}" 20)"
pair ours_many2 "$PAIMON" read "$PLANNING" --format null --threads 2 -- \
  raw_many2 "$RAW" raw "$PLANNING" --threads 2
R=$(div "${T[raw_many2]}" "${T[ours_many2]}")
row "8b same, 2 threads: wall s (CPU s)" "${T[ours_many2]} (${C[ours_many2]})" \
  "${T[raw_many2]} (${C[raw_many2]})" "${R}x throughput (wall)" "< 20 s" \
  "$(le "${T[ours_many2]}" 20)"

fi

if want sql || named ballista; then
  source "$ROOT/scripts/bench-sql-queries.sh"
fi
if want sql; then
  source "$ROOT/scripts/bench-sql.sh"
fi
if named ballista; then
  source "$ROOT/scripts/bench-ballista.sh"
fi
if want python; then
  source "$ROOT/scripts/bench-python.sh"
fi
if want write; then
  source "$ROOT/scripts/bench-write.sh"
fi
if want compact; then
  source "$ROOT/scripts/bench-compact.sh"
fi

# ---------------------------------------------------------------- report
TABLE=$(
  echo "| figure | ours | baseline | ratio | goal | met? |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS_OUT[@]}"
)
echo
echo "$TABLE"

if [[ $DOC == 1 ]]; then
  DOCF="$ROOT/docs/benchmarks.md"
  if want sql; then write_sql_doc "$DOCF"; fi
  if named ballista; then write_ballista_doc "$DOCF"; fi
  if want python; then write_python_doc "$DOCF"; fi
  if want write; then write_write_doc "$DOCF"; fi
  if want compact; then write_compact_doc "$DOCF"; fi
fi
if [[ $DOC == 1 ]] && want read; then
  CPU=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
  MEM=$(free -g 2>/dev/null | awk '/^Mem:/ { print $2 " GB" }')
  GEN=$(
    echo "<!-- bench:begin (written by scripts/bench.sh; edit outside the markers) -->"
    echo
    echo "Last run: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (+ local changes)'),"
    echo "\`scripts/bench.sh$([[ $QUICK == 1 ]] && echo ' --quick') --reps $REPS\`."
    echo
    echo "Machine: ${CPU:-unknown CPU}, $(nproc) cores, ${MEM:-?} RAM, $(uname -sr), $(rustc --version 2>/dev/null)."
    echo "Load average at the start: $LOAD (other engineers' builds share the machine). Times are the best of"
    echo "$REPS alternating runs; single-threaded figures compare CPU time (user + sys), which the"
    echo "neighbours disturb far less than wall time; compare ratios, not seconds."
    echo
    echo "Tables: append_big $ROWS rows (80 zstd Parquet files, 4 partitions), pk_big $PK_ROWS rows"
    echo "(5 overlapping commits, $(( PK_ROWS / 5 * 17 / 5 )) distinct keys, 4 buckets, uncompacted),"
    echo "append_orc / append_avro $(( ROWS / 4 )) rows, planning table $PLAN_N files ($PLAN_COMMITS commits x 100 partitions), merged by Java and unmerged (one manifest per commit)."
    echo
    echo "$TABLE"
    echo
    echo "Commands (ours vs baseline, each run as its own process, wall time):"
    echo
    echo '```'
    echo "paimon read TABLE [--select $PROJ] --format null --threads N   # ours"
    echo "paimon-bench raw TABLE [--select $PROJ] --threads N             # parquet / orc-rust / arrow-avro decoders on the planned files"
    echo "paimon-bench plan PLANNING_TABLE                                # in-process plan time; peak RSS via /usr/bin/time -f %M"
    echo "paimon-bench pushdown append_big --filter 'id < $SEL'           # CountingFileIO bytes, with and without the filter"
    echo '```'
    echo
    echo "<!-- bench:end -->"
  )
  if [[ -f "$DOCF" ]] && grep -q '<!-- bench:begin' "$DOCF"; then
    awk -v gen="$GEN" '
      /<!-- bench:begin/ { print gen; skip = 1; next }
      /<!-- bench:end/ { skip = 0; next }
      !skip { print }
    ' "$DOCF" >"$DOCF.tmp" && mv "$DOCF.tmp" "$DOCF"
  else
    { echo "# Benchmarks"; echo; echo "$GEN"; } >"$DOCF"
  fi
  echo "bench: wrote $DOCF" >&2
fi
