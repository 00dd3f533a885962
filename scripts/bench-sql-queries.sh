# The SQL warehouse and queries that bench-sql.sh and bench-ballista.sh time; sourced by
# scripts/bench.sh with $BENCH, $TABLES and $ROWS set.

# A warehouse whose database `bench` is the benchmark tables' directory.
SQL_WH="$BENCH/sql-warehouse-$(basename "$TABLES")"
mkdir -p "$SQL_WH"
ln -sfn "$TABLES" "$SQL_WH/bench.db"

GROUP_BY="SELECT p, count(*), sum(d1), avg(i1) FROM bench.append_big GROUP BY p ORDER BY p"
SEL_ID=$(( ROWS / 100 ))
SELECTIVE="SELECT count(*), sum(d1) FROM bench.append_big WHERE id < $SEL_ID"
PK_COUNT="SELECT count(*) FROM bench.pk_big"
PK_GROUP="SELECT v1 % 10, count(*), sum(v2) FROM bench.pk_big GROUP BY v1 % 10 ORDER BY 1"
