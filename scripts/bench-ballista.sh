# Ballista figures of scripts/bench.sh (issue 12), only with `--only ...,ballista`; sourced by it
# after the SQL figures, with its helpers (run, div), the SQL warehouse and queries ($SQL_WH,
# $GROUP_BY, $PK_GROUP) and the binaries ($PAIMON, $TARGET) set. One scheduler and two
# executors (one task slot each: this machine has two cores) on loopback run the queries of
# `paimon sql --scheduler`; the baseline is the same `paimon sql` locally, in the same run.
# Writes its own section of docs/benchmarks.md (markers bench-ballista) through
# write_ballista_doc.

BALLISTA_ROWS=()
ballista_row() {
  BALLISTA_ROWS+=("| $1 | $2 | $3 | $4 |")
  echo "| $1 | $2 | $3 | $4 |" >&2
}
BALLISTA="$TARGET/paimon-ballista"
BALLISTA_DIR=$(mktemp -d "$BENCH/ballista.XXXXXX")
BALLISTA_PARTITIONS=${BENCH_BALLISTA_PARTITIONS:-4}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

SCHED="127.0.0.1:$(free_port)"
BALLISTA_PIDS=()
"$BALLISTA" scheduler --bind "$SCHED" --min-ready-executors 2 --warehouse "$SQL_WH" >"$BALLISTA_DIR/scheduler.log" 2>&1 &
BALLISTA_PIDS+=($!)
for i in 0 1; do
  mkdir -p "$BALLISTA_DIR/work-$i"
  "$BALLISTA" executor --scheduler "$SCHED" --bind "127.0.0.1:$(free_port)" \
    --grpc-port "$(free_port)" --concurrent-tasks 1 --work-dir "$BALLISTA_DIR/work-$i" --warehouse "$SQL_WH" \
    >"$BALLISTA_DIR/executor-$i.log" 2>&1 &
  BALLISTA_PIDS+=($!)
done
stop_ballista() { kill "${BALLISTA_PIDS[@]}" 2>/dev/null || true; wait "${BALLISTA_PIDS[@]}" 2>/dev/null || true; }
trap stop_ballista EXIT
for ((i = 0; i < 600; i++)); do
  curl -sf "http://$SCHED/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
if ! curl -sf "http://$SCHED/readyz" >/dev/null 2>&1; then
  echo "bench: the Ballista cluster did not get ready; logs in $BALLISTA_DIR" >&2
  exit 1
fi

ballista_pair() { # NAME QUERY: local paimon sql vs the same on the cluster
  for ((i = 0; i < REPS; i++)); do
    run "local_$1" "$PAIMON" sql "$SQL_WH" "$2" --format null --target-partitions "$BALLISTA_PARTITIONS"
    run "ballista_$1" "$PAIMON" sql --scheduler "df://$SCHED" "$SQL_WH" "$2" --format null \
      --target-partitions "$BALLISTA_PARTITIONS"
  done
}
ballista_pair group_by "$GROUP_BY"
ballista_pair pk_group "$PK_GROUP"

# Splits each executor read (its `scans <table> (<n> splits)` lines), to show both took scans.
splits_per_executor() {
  local i out=()
  for i in 0 1; do
    out+=("$(awk '/ scans / { gsub(/[()]/, "", $(NF-1)); s += $(NF-1) } END { print s + 0 }' \
      "$BALLISTA_DIR/executor-$i.log")")
  done
  echo "${out[0]} / ${out[1]}"
}
SPLITS_READ=$(splits_per_executor)
stop_ballista
trap - EXIT

ballista_vs_local() { # LABEL NAME
  local r; r=$(div "${T[local_$2]}" "${T[ballista_$2]}")
  ballista_row "$1: wall s" "${T[ballista_$2]}" "${T[local_$2]}" "${r}x local's speed"
}
ballista_vs_local "append_big group by p" group_by
ballista_vs_local "pk_big group by v1 % 10 (merged rows)" pk_group

write_ballista_doc() {
  local docf="$1" gen table
  table=$(
    echo "| figure | Ballista, 2 executors | local \`paimon sql\` | ratio |"
    echo "|---|---|---|---|"
    printf '%s\n' "${BALLISTA_ROWS[@]}"
  )
  gen=$(
    echo "<!-- bench-ballista:begin (written by scripts/bench.sh; edit outside the markers) -->"
    echo
    echo "Last run: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo ' (+ local changes)'), \`scripts/bench.sh$([[ $QUICK == 1 ]] && echo ' --quick') --reps $REPS --only $ONLY\`;"
    echo "load average at the start: $LOAD. Best wall time of $REPS runs, each a \`paimon sql\` process of its own."
    echo "One scheduler and two executors with one task slot each, on loopback on this 2-core machine;"
    echo "both sides plan $BALLISTA_PARTITIONS partitions per scan. Splits read by executor 0 / executor 1 over all runs: $SPLITS_READ."
    echo
    echo "$table"
    echo
    echo '```'
    echo "paimon-ballista scheduler --bind HOST:PORT --warehouse WAREHOUSE; paimon-ballista executor --scheduler HOST:PORT --warehouse WAREHOUSE --concurrent-tasks 1   # x2"
    echo "paimon sql --scheduler df://HOST:PORT WH \"$GROUP_BY\" --format null --target-partitions $BALLISTA_PARTITIONS"
    echo "paimon sql WH \"<same>\" --format null --target-partitions $BALLISTA_PARTITIONS                     # local"
    echo '```'
    echo
    echo "<!-- bench-ballista:end -->"
  )
  write_doc_section "$docf" bench-ballista Ballista "$gen"
}
