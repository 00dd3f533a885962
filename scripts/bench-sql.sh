# SQL figures of scripts/bench.sh (issue 12); sourced by it after the read figures, with its
# helpers (run, pair, div, ge, field), tables ($TABLES), binaries ($PAIMON, $TARGET) and the
# warehouse and queries of bench-sql-queries.sh set.
# Writes its own section of docs/benchmarks.md (markers bench-sql) through write_sql_doc.

SQL_ROWS=()
sql_row() { SQL_ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); echo "| $1 | $2 | $3 | $4 | $5 | $6 |" >&2; }

# DataFusion's own Parquet reader over the same files: every data file of append_big (written
# once by Java, never compacted, so the files on disk are exactly the live ones).
# The files sit two directories down (p=N/bucket-0/): DataFusion lists them only when told to,
# and must not read `p=N` as a partition column (the files hold p themselves).
raw_sql() {
  printf "SET datafusion.execution.listing_table_ignore_subdirectory = false;\nSET datafusion.execution.listing_table_factory_infer_partitions = false;\nCREATE EXTERNAL TABLE raw STORED AS PARQUET LOCATION '%s/';\n%s;\n" \
    "$TABLES/append_big" "${1//bench.append_big/raw}"
}

# paimon-rust 0.4 (pypaimon-rust's SQLContext, DataFusion inside): one process per run.
PRS_CODE='
import sys
from pypaimon_rust.datafusion import SQLContext
ctx = SQLContext()
ctx.register_catalog("paimon", {"warehouse": sys.argv[1]})
ctx.set_current_catalog("paimon")
rows = sum(b.num_rows for b in ctx.sql(sys.argv[2]))
print(f"rows={rows}")
'

sql_pair() { # NAME QUERY: ours vs DataFusion-on-Parquet (when RAW=1) vs paimon-rust
  local name="$1" q="$2" with_raw="$3"
  for ((i = 0; i < REPS; i++)); do
    run "sql_$name" "$PAIMON" sql "$SQL_WH" "$q" --format null
    if [[ $with_raw == 1 ]]; then
      run "df_$name" bash -c 'raw_sql "$1" | "$2" sql "$3" --format null' _ "$q" "$PAIMON" "$SQL_WH"
    fi
    if [[ -n "${BENCH_PAIMON_RUST_PY:-}" ]]; then
      run "prs_$name" "$BENCH_PAIMON_RUST_PY" -c "$PRS_CODE" "$SQL_WH" "$q"
    fi
  done
}
export -f raw_sql
export TABLES

sql_pair group_by "$GROUP_BY" 1
sql_pair selective "$SELECTIVE" 1
sql_pair pk_count "$PK_COUNT" 0
sql_pair pk_group "$PK_GROUP" 0

sql_vs_df() { # LABEL NAME GOAL: throughput ratio against DataFusion on the Parquet files
  local r; r=$(div "${T[df_$2]}" "${T[sql_$2]}")
  sql_row "$1: wall s" "${T[sql_$2]}" "${T[df_$2]} (DataFusion on the Parquet files)" \
    "${r}x its speed" ">= ${3}x" "$(ge "$r" "$3")"
}
sql_vs_prs() { # LABEL NAME GOAL
  [[ -z "${BENCH_PAIMON_RUST_PY:-}" ]] && return
  local r; r=$(div "${T[prs_$2]}" "${T[sql_$2]}")
  sql_row "$1: wall s" "${T[sql_$2]}" "${T[prs_$2]} (paimon-rust 0.4 SQLContext)" \
    "${r}x faster" ">= ${3}x" "$(ge "$r" "$3")"
}
sql_vs_df "9a append_big group by p" group_by 0.95
sql_vs_prs "9a' same" group_by 1.5
sql_vs_df "9b append_big 'id < $SEL_ID' (1%)" selective 0.95
sql_vs_prs "9b' same" selective 1.5
sql_row "9c pk_big count(*) (merged rows): wall s" "${T[sql_pk_count]}" "${T[prs_pk_count]:--}" \
  "$([[ -n ${T[prs_pk_count]:-} ]] && echo "$(div "${T[prs_pk_count]}" "${T[sql_pk_count]}")x faster" || echo -)" \
  ">= 2x paimon-rust" "$([[ -n ${T[prs_pk_count]:-} ]] && ge "$(div "${T[prs_pk_count]}" "${T[sql_pk_count]}")" 2 || echo -)"
sql_row "9d pk_big group by v1 % 10: wall s" "${T[sql_pk_group]}" "${T[prs_pk_group]:--}" \
  "$([[ -n ${T[prs_pk_group]:-} ]] && echo "$(div "${T[prs_pk_group]}" "${T[sql_pk_group]}")x faster" || echo -)" \
  ">= 2x paimon-rust" "$([[ -n ${T[prs_pk_group]:-} ]] && ge "$(div "${T[prs_pk_group]}" "${T[sql_pk_group]}")" 2 || echo -)"

write_sql_doc() {
  local docf="$1" gen table
  table=$(
    echo "| figure | ours | baseline | ratio | goal | met? |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${SQL_ROWS[@]}"
  )
  gen=$(
    echo "<!-- bench-sql:begin (written by scripts/bench.sh; edit outside the markers) -->"
    echo
    echo "Last run: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (+ local changes)'), \`scripts/bench.sh$([[ $QUICK == 1 ]] && echo ' --quick') --reps $REPS${ONLY:+ --only $ONLY}\`;"
    echo "load average at the start: $LOAD. Best wall time of $REPS runs, each a process of its own (session setup, planning and reading included)."
    echo "append_big $ROWS rows, pk_big $PK_ROWS rows, as in the read figures."
    echo
    echo "$table"
    echo
    echo '```'
    echo "paimon sql WH \"$GROUP_BY\" --format null                         # ours"
    echo "paimon sql WH <<< \"CREATE EXTERNAL TABLE raw STORED AS PARQUET LOCATION 'append_big/'; <same query on raw>\"   # DataFusion's Parquet reader"
    echo "python -c 'SQLContext().register_catalog(\"paimon\", {\"warehouse\": WH}); ctx.sql(Q)'         # paimon-rust 0.4 (pypaimon-rust)"
    echo '```'
    echo
    echo "<!-- bench-sql:end -->"
  )
  write_doc_section "$docf" bench-sql SQL "$gen"
}
