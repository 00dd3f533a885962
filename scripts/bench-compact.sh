# Compaction figures (issue 14), sourced by scripts/bench.sh (`--only compact`, or by default).
# Uses run/pair/field/div/ge/le/REPS/TABLES/PLANNING/PAIMON/RAW/BENCH/LOAD/QUICK/ONLY from
# bench.sh. Writes its own section of docs/benchmarks.md (markers bench-compact) through
# write_compact_doc.
#
# 14a `paimon compact --full --threads 1` of a copy of pk_big against Java 1.4.2's full
#     compaction of another copy (`scripts/java-oracle.sh compact`: one JVM, whose single
#     compaction thread compacts the buckets one after another; its JVM start is included),
#     each on a fresh copy per rep; both must leave the same files per bucket and level and
#     the same rows (Java reads both).
# 14b merge-on-read of pk_big before the compaction against a plain read after it.
# 14c `paimon compact --full` of a copy of the planning table (100 partitions of small files),
#     then planning and reading it again against the table before.

COMPACT_ROWS=()
compact_row() { COMPACT_ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); echo "| $1 | $2 | $3 | $4 | $5 | $6 |" >&2; }

CW="$BENCH/compact-work"
rm -rf "$CW"
mkdir -p "$CW"

# Files per bucket and level, one line each, sorted (paths dropped).
file_shape() { "$PAIMON" files "$1" | awk '{ print $1, $3, $5 }' | sort | uniq -c; }

for ((i = 0; i < REPS; i++)); do
  rm -rf "$CW/ours" "$CW/java"
  cp -r "$TABLES/pk_big" "$CW/ours"
  cp -r "$TABLES/pk_big" "$CW/java"
  run c_ours "$PAIMON" compact "$CW/ours" --full --threads 1
  run c_java "$ROOT/scripts/java-oracle.sh" compact "$CW/java"
done
if [[ "$(file_shape "$CW/ours")" == "$(file_shape "$CW/java")" ]]; then shape=same; else shape=different; fi
JAVA_OURS=$("$ROOT/scripts/java-oracle.sh" dump "$CW/ours" --sort | md5sum | cut -c1-12)
JAVA_JAVA=$("$ROOT/scripts/java-oracle.sh" dump "$CW/java" --sort | md5sum | cut -c1-12)
if [[ $JAVA_OURS == "$JAVA_JAVA" ]]; then rows=same; else rows=different; fi
r=$(div "${T[c_java]}" "${T[c_ours]}")
compact_row "14a pk_big full compaction, 1 thread vs Java's: wall s (CPU s); files per bucket and level, Java's rows" \
  "${T[c_ours]} (${C[c_ours]})" "${T[c_java]} (${C[c_java]})" "${r}x faster; files $shape, rows $rows" \
  ">= 2x, same files and rows" "$([[ $shape == same && $rows == same ]] && ge "$r" 2 || echo no)"

# 14b: merge-on-read of the five overlapping runs against reading the one compacted run.
pair mor_before "$PAIMON" read "$TABLES/pk_big" --format null --threads 1 -- \
  mor_after "$PAIMON" read "$CW/ours" --format null --threads 1
r=$(div "${C[mor_before]}" "${C[mor_after]}")
compact_row "14b pk_big read after full compaction vs before (merge-on-read), 1 thread: CPU s (wall s)" \
  "${C[mor_after]} (${T[mor_after]})" "${C[mor_before]} (${T[mor_before]})" "${r}x faster" "-" "-"

# 14c: the planning table, compacted once (its copy is made once: 100,000 files).
if [[ -d "$PLANNING" ]]; then
  rm -rf "$CW/planning"
  cp -r "$PLANNING" "$CW/planning"
  FILES_BEFORE=$("$PAIMON" files "$CW/planning" | wc -l)
  run plan_compact "$PAIMON" compact "$CW/planning" --full
  FILES_AFTER=$("$PAIMON" files "$CW/planning" | wc -l)
  pair plan_before "$RAW" plan "$PLANNING" -- plan_after "$RAW" plan "$CW/planning"
  pair read_before "$PAIMON" read "$PLANNING" --format null --threads 1 -- \
    read_after "$PAIMON" read "$CW/planning" --format null --threads 1
  compact_row "14c compact the planning table ($FILES_BEFORE files -> $FILES_AFTER), 2 threads: wall s (CPU s)" \
    "${T[plan_compact]} (${C[plan_compact]})" "-" "-" "-" "-"
  compact_row "14c plan it after vs before: wall s of \`paimon-bench plan\` (peak MB)" \
    "${T[plan_after]} (${M[plan_after]})" "${T[plan_before]} (${M[plan_before]})" \
    "$(div "${T[plan_before]}" "${T[plan_after]}")x faster" "-" "-"
  compact_row "14c read it whole after vs before, 1 thread: wall s (CPU s)" \
    "${T[read_after]} (${C[read_after]})" "${T[read_before]} (${C[read_before]})" \
    "$(div "${T[read_before]}" "${T[read_after]}")x faster" "-" "-"
fi
rm -rf "$CW"

write_compact_doc() {
  local docf="$1" gen table
  table=$(
    echo "| figure | ours | baseline | ratio | goal | met? |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${COMPACT_ROWS[@]}"
  )
  gen=$(
    echo "<!-- bench-compact:begin (written by scripts/bench.sh; edit outside the markers) -->"
    echo
    echo "Last run: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (+ local changes)'), \`scripts/bench.sh$([[ $QUICK == 1 ]] && echo ' --quick') --reps $REPS${ONLY:+ --only $ONLY}\`;"
    echo "load average at the start: $LOAD. Best of $REPS alternating runs, each compaction on a"
    echo "fresh copy. 14a: \`paimon compact --full --threads 1\` against \`scripts/java-oracle.sh"
    echo "compact\` (Java 1.4.2's full compaction, one compaction thread, JVM start included); files"
    echo "compared per bucket and level (\`paimon files\`), rows as Java reads each copy. 14b:"
    echo "\`paimon read --format null --threads 1\` of pk_big before and after. 14c: the planning table."
    echo
    echo "$table"
    echo
    echo "<!-- bench-compact:end -->"
  )
  write_doc_section "$docf" bench-compact "Compaction" "$gen"
}
