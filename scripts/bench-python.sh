# Python figures of scripts/bench.sh (issue 11); sourced by it with its helpers (run, div, ge,
# field), tables ($TABLES, $A, $P), binaries ($PAIMON) and $REPS set. Writes its own section
# of docs/benchmarks.md (markers bench-python) through write_python_doc.
#
# The readers share one bench venv (.cache/bench/venv): pypaimon 2.1.0 pins pyarrow < 20, so
# this checkout's wheel (built here in release with symbols stripped, as a published wheel
# would be; installed without dependencies) runs on the
# same pyarrow as pypaimon and pypaimon-rust 0.4.0. Scan figures pin each process to one core
# (taskset -c 0) and time the read inside the process (benches/python/bench_read.py), so every
# reader has the same single thread of CPU and interpreter start-up is not measured.

PY_ROWS=()
py_row() { PY_ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); echo "| $1 | $2 | $3 | $4 | $5 | $6 |" >&2; }

source "$ROOT/scripts/bench-python-env.sh"

# A warehouse whose database `bench` is the benchmark tables' directory (for the catalogs).
PY_WH="$BENCH/py-warehouse-$(basename "$TABLES")"
mkdir -p "$PY_WH"
ln -sfn "$TABLES" "$PY_WH/bench.db"
BR="$ROOT/benches/python/bench_read.py"
BRAY="$ROOT/benches/python/bench_ray.py"

for t in append_big pk_big; do
  path="$TABLES/$t"
  for ((i = 0; i < REPS; i++)); do
    run "cli_$t" taskset -c 0 "$PAIMON" read "$path" --format null --threads 1
  done
  for r in paimon_rs pypaimon_rust pypaimon; do
    # pypaimon is pure Python: one rep of it is enough to place it.
    n=$REPS; [[ $r == pypaimon ]] && n=1
    out=$(taskset -c 0 "$BPY" "$BR" "$r" "$PY_WH" "bench.$t" "$n")
    echo "bench: $r $t: $out" >&2
    PYO["${r}_$t"]="$out"
  done
  for r in paimon_rs pypaimon; do
    out=$("$BPY" "$BRAY" "$r" "$PY_WH" "bench.$t" "$REPS" 2>/dev/null | tail -1)
    echo "bench: ray $r $t: $out" >&2
    PYO["ray_${r}_$t"]="$out"
  done
done

# rows_note A B: a warning when two readers returned different row counts.
rows_note() {
  local a b; a=$(field "$1" rows); b=$(field "$2" rows)
  [[ "$a" == "$b" ]] || echo " (rows differ: $a vs $b)"
}
pycpu() { field "${PYO[$1]}" cpu; }

for t in append_big pk_big; do
  ours="${PYO[paimon_rs_$t]}"
  r=$(div "${C[cli_$t]}" "$(pycpu "paimon_rs_$t")")
  py_row "10 $t full scan to a pyarrow Table, 1 core: CPU s" "$(pycpu "paimon_rs_$t")" \
    "${C[cli_$t]} (paimon read --format null)" "${r}x its throughput" ">= 0.95x" "$(ge "$r" 0.95)"
  goal=1.25; [[ $t == pk_big ]] && goal=2
  r=$(div "$(pycpu "pypaimon_rust_$t")" "$(pycpu "paimon_rs_$t")")
  py_row "10 $t, same" "$(pycpu "paimon_rs_$t")" "$(pycpu "pypaimon_rust_$t") (pypaimon-rust 0.4.0)" \
    "${r}x faster$(rows_note "$ours" "${PYO[pypaimon_rust_$t]}")" ">= ${goal}x" "$(ge "$r" "$goal")"
  r=$(div "$(pycpu "pypaimon_$t")" "$(pycpu "paimon_rs_$t")")
  py_row "10 $t, same" "$(pycpu "paimon_rs_$t")" "$(pycpu "pypaimon_$t") (pypaimon 2.1.0)" \
    "${r}x faster$(rows_note "$ours" "${PYO[pypaimon_$t]}")" "-" "-"
  a=$(field "${PYO[ray_paimon_rs_$t]}" wall); b=$(field "${PYO[ray_pypaimon_$t]}" wall)
  py_row "11 $t read_paimon on a 2-CPU local Ray cluster: wall s" "$a" "$b (pypaimon.ray.read_paimon)" \
    "$(div "$b" "$a")x faster$(rows_note "${PYO[ray_paimon_rs_$t]}" "${PYO[ray_pypaimon_$t]}")" "-" "-"
done
ours_mb=$(awk -v b="$(stat -c %s "$WHEEL")" 'BEGIN { printf "%.1f", b / 1048576 }')
prs_mb=$(awk -v b="$(stat -c %s "$PRS_WHEEL")" 'BEGIN { printf "%.1f", b / 1048576 }')
py_row "12 wheel size (MB)" "$ours_mb ($(basename "$WHEEL"))" "$prs_mb ($(basename "$PRS_WHEEL"))" \
  "$(div "$ours_mb" "$prs_mb")x" "smaller" "$(le "$ours_mb" "$prs_mb")"

write_python_doc() {
  local docf="$1" gen table
  table=$(
    echo "| figure | ours | baseline | ratio | goal | met? |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${PY_ROWS[@]}"
  )
  gen=$(
    echo "<!-- bench-python:begin (written by scripts/bench.sh; edit outside the markers) -->"
    echo
    echo "Last run: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (+ local changes)'), \`scripts/bench.sh$([[ $QUICK == 1 ]] && echo ' --quick') --reps $REPS${ONLY:+ --only $ONLY}\`;"
    echo "load average at the start: $LOAD. append_big $ROWS rows, pk_big $PK_ROWS rows, as in the read figures."
    echo "Scans: best of $REPS reads in one process pinned to one core (pypaimon: one read), CPU seconds of the"
    echo "read alone (benches/python/bench_read.py); the CLI's figure is its whole process. Ray: best of $REPS"
    echo "reads on \`ray.init(num_cpus=2)\`, every block pulled to the driver (benches/python/bench_ray.py)."
    echo
    echo "$table"
    echo
    echo "<!-- bench-python:end -->"
  )
  write_doc_section "$docf" bench-python Python "$gen"
}
