# Write figures (issue 13), sourced by scripts/bench.sh (`--only write`, or by default).
# Uses run/field/div/ge/le/REPS/TABLES/PLANNING_NM/RAW/BENCH/LOAD/QUICK/ONLY from bench.sh.
# Writes its own section of docs/benchmarks.md (markers bench-write) through write_write_doc.

WRITE_ROWS=()
write_row() { WRITE_ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); echo "| $1 | $2 | $3 | $4 | $5 | $6 |" >&2; }

WOUT="$BENCH/write-out"
# In-process figures: the rows are read into memory first; each time is the best of REPS.
W_APPEND=$("$RAW" write "$TABLES/append_big" --out "$WOUT" --reps "$REPS")
W_PK=$("$RAW" write "$TABLES/pk_big" --out "$WOUT" --reps "$REPS")
W_COMMIT=$("$RAW" commit-latency "$PLANNING_NM" --out "$WOUT" --reps "$REPS")
rm -rf "$WOUT"

w_fig() { # LABEL OUTPUT GOAL
  local out="$2" ours raw r
  ours=$(field "$out" ours_ms); raw=$(field "$out" raw_ms)
  r=$(div "$raw" "$ours")
  write_row "$1: $(field "$out" rows) rows, 1 thread, ms (MB written)" \
    "$ours ($(( $(field "$out" ours_bytes) / 1048576 )))" \
    "$raw ($(( $(field "$out" raw_bytes) / 1048576 )))" "${r}x throughput" "$3" \
    "$([[ $3 == - ]] && echo - || ge "$r" "${3#>= }")"
}
w_fig "13a append_big write (TableWrite + prepare_commit) vs ArrowWriter" "$W_APPEND" ">= 0.9"
# The same write against ArrowWriters writing one file per partition, the files the table needs.
# Ours with every core encoding columns (`TableWrite::with_threads`) against the one-thread
# ArrowWriter: what a writer that may use the machine gets.
r=$(div "$(field "$W_APPEND" raw_ms)" "$(field "$W_APPEND" ours_cores_ms)")
write_row "13a'' same, ours on $(field "$W_APPEND" cores) cores (columns encoded side by side) vs ArrowWriter on 1, ms" \
  "$(field "$W_APPEND" ours_cores_ms)" "$(field "$W_APPEND" raw_ms)" "${r}x throughput" "-" "-"
r=$(div "$(field "$W_APPEND" split_ms)" "$(field "$W_APPEND" ours_ms)")
write_row "13a' same, vs ArrowWriter into one file per partition ($(field "$W_APPEND" split_files) files), ms" \
  "$(field "$W_APPEND" ours_ms)" "$(field "$W_APPEND" split_ms)" "${r}x throughput" "-" "-"
write_row "13b commit of 13a's files (ms)" "$(field "$W_APPEND" commit_ms)" "-" "-" "-" "-"
w_fig "13c pk_big's merged rows written into a 4-bucket PK table vs ArrowWriter" "$W_PK" "-"
write_row "13d one-row commit with $(field "$W_COMMIT" manifests) manifests in the table (ms)" \
  "$(field "$W_COMMIT" ms)" "$(field "$W_COMMIT" empty_ms) (empty table)" \
  "$(div "$(field "$W_COMMIT" ms)" "$(field "$W_COMMIT" empty_ms)")x" "-" "-"

# Python writers (benches/python/bench_write.py), the write and the commit timed inside the
# process: pinned to one core (CPU time), then free to use every core (wall time; paimon_rs then
# encodes columns on all of them, its default); pypaimon (pure Python) and pypaimon-rust run
# one rep.
source "$ROOT/scripts/bench-python-env.sh"
BW="$ROOT/benches/python/bench_write.py"
declare -A PYW
for t in append_big pk_big; do
  for mode in one all; do
    pin=(); [[ $mode == one ]] && pin=(taskset -c 0)
    key=cpu; [[ $mode == all ]] && key=wall
    for w in paimon_rs pypaimon_rust pypaimon; do
      n=$REPS; [[ $w != paimon_rs ]] && n=1
      out=$("${pin[@]}" "$BPY" "$BW" "$w" "$TABLES/$t" "$BENCH/write-py-$w" "$n" 2>"$BENCH/write-py-$w.err") \
        || out="failed: $(tail -1 "$BENCH/write-py-$w.err")"
      echo "bench: write $w $t ($mode): $out" >&2
      PYW["${w}_${t}_$mode"]="$out"
    done
    ours=$(field "${PYW[paimon_rs_${t}_$mode]}" "$key")
    best="" best_name=""
    for w in pypaimon_rust pypaimon; do
      c=$(field "${PYW[${w}_${t}_$mode]}" "$key")
      [[ -z $c ]] && continue
      if [[ -z $best ]] || awk -v a="$c" -v b="$best" 'BEGIN { exit !(a < b) }'; then
        best=$c; best_name=$w
      fi
    done
    r=$( [[ -n $best ]] && div "$best" "$ours" || echo - )
    label="1 core: CPU s"; [[ $mode == all ]] && label="every core ($(nproc)): wall s"
    write_row "13e Python write + commit of $t ($(field "${PYW[paimon_rs_${t}_$mode]}" rows) rows), $label" \
      "$ours" "pypaimon-rust $(field "${PYW[pypaimon_rust_${t}_$mode]}" "$key" || true), pypaimon $(field "${PYW[pypaimon_${t}_$mode]}" "$key" || true)" \
      "${r}x vs $best_name" ">= 2x the faster" "$([[ $r == - ]] && echo - || ge "$r" 2)"
  done
done

write_write_doc() {
  local docf="$1" gen table
  table=$(
    echo "| figure | ours | baseline | ratio | goal | met? |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${WRITE_ROWS[@]}"
  )
  gen=$(
    echo "<!-- bench-write:begin (written by scripts/bench.sh; edit outside the markers) -->"
    echo
    echo "Last run: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (+ local changes)'), \`scripts/bench.sh$([[ $QUICK == 1 ]] && echo ' --quick') --reps $REPS${ONLY:+ --only $ONLY}\`;"
    echo "load average at the start: $LOAD. \`paimon-bench write\` reads the source table into memory"
    echo "once, then times (best of $REPS, alternating) \`TableWrite\` writing every batch into a new"
    echo "table with the source's schema and options plus \`prepare_commit\`, against the parquet"
    echo "crate's \`ArrowWriter\` writing the same batches into one file with the same writer"
    echo "properties (zstd level 1). 13d: \`paimon-bench commit-latency\` on a copy of the metadata of"
    echo "the unmerged planning table against an empty table of the same schema. 13e:"
    echo "\`benches/python/bench_write.py\` in the bench venv (the paimon_rs wheel built in release), one"
    echo "process per writer, pinned to one core (\`_one\`, CPU time) or free to use every core (\`_all\`,"
    echo "wall time; paimon_rs then encodes Parquet columns on every core, its default), each writing"
    echo "the rows (read into memory first) into a new table with the source's columns, keys and"
    echo "options and committing. Each writer's output:"
    echo
    for k in "${!PYW[@]}"; do echo "- $k: \`${PYW[$k]}\`"; done | sort
    echo
    echo "$table"
    echo
    echo "<!-- bench-write:end -->"
  )
  write_doc_section "$docf" bench-write "Write" "$gen"
}
