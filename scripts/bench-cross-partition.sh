#!/usr/bin/env bash
# Write throughput of a cross-partition upsert table against a plain dynamic-bucket table on the
# same rows (issue 45): `paimon write` of ROWS rows (default 200000) over 4 partitions into
#   plain: primary key (id, dt), bucket = -1 (the hash index assigns buckets);
#   cross: primary key (id),     bucket = -1 (the key index, bootstrapped from the table).
# Two commits each: every key new, then every key again, a quarter of them in another
# partition (a move for the cross table, a new key for the plain one). Prints the wall times
# and the ratio plain/cross (one run; no goal). PAIMON=path picks the binary (default: a
# release build in $CARGO_TARGET_DIR).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
ROWS="${ROWS:-200000}"
if [[ -z "${PAIMON:-}" ]]; then
    cargo build -q --release -p paimon-cli --locked --bin paimon
    PAIMON="$CARGO_TARGET_DIR/release/paimon"
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK" "$ROWS" <<'PY'
import sys
work, n = sys.argv[1], int(sys.argv[2])
for name, shift in (("1.csv", 0), ("2.csv", 1)):
    with open(f"{work}/{name}", "w") as f:
        f.write("id,v,dt\n")
        for i in range(n):
            p = (i + shift * (i % 4 == 0)) % 4
            f.write(f"{i},value-{i}-{name},p{p}\n")
PY
SCHEMA='{"fields":[{"name":"id","type":"BIGINT"},{"name":"v","type":"STRING"},{"name":"dt","type":"STRING"}]}'
"$PAIMON" create-table "$WORK/plain" --schema "$SCHEMA" --primary-key id,dt --partition-key dt \
    --option bucket=-1 >/dev/null
"$PAIMON" create-table "$WORK/cross" --schema "$SCHEMA" --primary-key id --partition-key dt \
    --option bucket=-1 >/dev/null
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(((e - s) / 1000000)); }
declare -A T
for t in plain cross; do
    T[$t]=0
    for f in 1.csv 2.csv; do
        m=$(ms "$PAIMON" write "$WORK/$t" --from "$WORK/$f")
        echo "$t $f: ${m} ms"
        T[$t]=$((T[$t] + m))
    done
done
echo "rows per commit: $ROWS; plain ${T[plain]} ms, cross ${T[cross]} ms;" \
    "throughput cross/plain: $(python3 -c "print(round(${T[plain]} / ${T[cross]}, 2))")"
