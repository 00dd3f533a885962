#!/usr/bin/env bash
# Commit messages at CommitMessageSerializer version 14 between paimon-rs and the 2.x-era peers
# pypaimon 2.1.0 and paimon-rust 0.4.0 (issue 42), both ways:
#
#   1. pypaimon writes tables and v14 message bytes (its own serializer); our decoder gives the
#      values pypaimon reports and our encoder gives back its bytes (the paimon-split test
#      `peer_messages`, pointed at the freshly generated messages);
#   2. `paimon commit --message-version 14` commits pypaimon's message files; pypaimon reads
#      the rows it wrote;
#   3. `paimon write --prepare-only --message-version 14` writes into tables pypaimon created;
#      pypaimon's deserializer reads our bytes (and re-serializes them to the same bytes), its
#      committer commits them, and pypaimon reads the rows;
#   4. the same with paimon-rust 0.4 (pypaimon_rust's `CommitMessage.deserialize` /
#      `serialize` and its committer), and paimon-rust's own writer's message bytes go
#      through 1. and 2. like pypaimon's.
#
# Bucket-unaware tables: our writer leaves total buckets out of its messages (Java's committers
# take the table's bucket option for an absent one; pypaimon 2.1's and paimon-rust 0.4's refuse
# any total buckets that is not positive), so both peers commit those messages too.
#
# A pypaimon / paimon-rust delete by row id carries a check-from snapshot: `paimon commit`
# performs that check (the snapshot must exist; row-id conflicts after it on data-evolution
# tables) and commits the message.
#
# Makes a venv (default target/peers-venv; PEERS_VENV to choose) with the two peers from PyPI,
# builds the `paimon` CLI, prints pass/fail counts and exits non-zero on any failure.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
START=$(date +%s)
source "$ROOT/scripts/test-lib.sh"

source "$ROOT/scripts/peers-venv.sh"
PY=$(peers_venv) || exit 1
[[ "${1:-}" == --prepare ]] && { echo "test-peers: prepared"; exit 0; }
PEERS="$ROOT/interop/peers/pypaimon_messages.py"

source "$ROOT/scripts/workspace-build.sh"
PAIMON=$(ws_paimon) || exit 1
# paimon-split's peer_messages tests on the message files in $1.
peer_message_tests() { PAIMON_PEER_MESSAGES="$1" ws_test paimon-split integration -q peer_messages; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
WH="$WORK/wh"
OUT="$WORK/pypaimon-messages"

if ! "$PY" "$PEERS" gen "$WH" "$OUT" >"$WORK/log" 2>&1; then
    cat "$WORK/log"
    echo "pypaimon could not generate messages"
    exit 1
fi

RUST_OUT="$WORK/paimon-rust-messages"
if ! "$PY" "$PEERS" rust-gen "$WH" "$RUST_OUT" >"$WORK/log" 2>&1; then
    cat "$WORK/log"
    echo "paimon-rust could not generate messages"
    exit 1
fi

# 1. pypaimon's v14 bytes: our values equal pypaimon's, our bytes equal pypaimon's.
check "pypaimon v14 bytes decode to pypaimon's values and re-encode byte for byte" \
    peer_message_tests "$OUT"

# 2. `paimon commit` commits pypaimon's message files; pypaimon reads the rows.
for case in append append_partitioned pk_buckets; do
    check "paimon commit of pypaimon's $case messages" \
        "$PAIMON" commit "$WH/peers.db/$case" --message-version 14 "$OUT/$case"/message-*.bin
    check "pypaimon reads the rows of $case committed by paimon-rs" \
        "$PY" "$PEERS" expect-rows "$WH" "peers.$case" "$OUT/$case/rows.json"
    check "paimon-rs reads the rows of $case" bash -c \
        '"$1" read "$2" --format jsonl >"$3" && "$4" "$5" same-rows "$3" "$6"' _ \
        "$PAIMON" "$WH/peers.db/$case" "$WORK/$case.ours.jsonl" "$PY" "$PEERS" \
        "$OUT/$case/rows.json"
    check "paimon-rust 0.4 gives back the bytes of pypaimon's $case messages" \
        "$PY" "$PEERS" same-bytes paimon_rust "$OUT/$case"/message-*.bin
done

# A pypaimon delete by row id (a deletion-vector index file with the check-from snapshot): our
# committer performs the check-from snapshot's conflict check and commits it; both read the rows.
check "paimon commit honours the check-from snapshot of pypaimon's dv_delete message" \
    "$PAIMON" commit "$WH/peers.db/dv_delete" --message-version 14 "$OUT/dv_delete"/message-*.bin
check "pypaimon reads the rows of dv_delete" \
    "$PY" "$PEERS" expect-rows "$WH" "peers.dv_delete" "$OUT/dv_delete/rows.json"
check "paimon-rs reads the rows of dv_delete" bash -c \
    '"$1" read "$2" --format jsonl >"$3" && "$4" "$5" same-rows "$3" "$6"' _ \
    "$PAIMON" "$WH/peers.db/dv_delete" "$WORK/dv_delete.ours.jsonl" "$PY" "$PEERS" \
    "$OUT/dv_delete/rows.json"

# 1b. and 2b. paimon-rust 0.4's v14 bytes (its writer's `CommitMessage.serialize`): our values
# equal pypaimon's reading of them, our bytes equal paimon-rust's; `paimon commit` commits them.
check "paimon-rust v14 bytes decode to pypaimon's values and re-encode byte for byte" \
    peer_message_tests "$RUST_OUT"
for case in append append_partitioned pk_buckets; do
    check "paimon commit of paimon-rust's $case messages" \
        "$PAIMON" commit "$WH/peers.db/rust_$case" --message-version 14 \
        "$RUST_OUT/$case"/message-*.bin
    check "pypaimon reads the rows of rust_$case committed by paimon-rs" \
        "$PY" "$PEERS" expect-rows "$WH" "peers.rust_$case" "$RUST_OUT/$case/rows.json"
    check "paimon-rs reads the rows of rust_$case" bash -c \
        '"$1" read "$2" --format jsonl >"$3" && "$4" "$5" same-rows "$3" "$6"' _ \
        "$PAIMON" "$WH/peers.db/rust_$case" "$WORK/rust_$case.ours.jsonl" "$PY" "$PEERS" \
        "$RUST_OUT/$case/rows.json"
done

check "paimon commit honours the check-from snapshot of paimon-rust's dv_delete message" \
    "$PAIMON" commit "$WH/peers.db/rust_dv_delete" --message-version 14 \
    "$RUST_OUT/dv_delete"/message-*.bin
check "pypaimon reads the rows of rust_dv_delete" \
    "$PY" "$PEERS" expect-rows "$WH" "peers.rust_dv_delete" "$RUST_OUT/dv_delete/rows.json"
check "paimon-rs reads the rows of rust_dv_delete" bash -c \
    '"$1" read "$2" --format jsonl >"$3" && "$4" "$5" same-rows "$3" "$6"' _ \
    "$PAIMON" "$WH/peers.db/rust_dv_delete" "$WORK/rust_dv_delete.ours.jsonl" "$PY" "$PEERS" \
    "$OUT/dv_delete/rows.json"

# 3. and 4. Our v14 message files, committed by pypaimon and by paimon-rust.
for peer in pypaimon paimon_rust; do
    for case in append append_partitioned pk_buckets; do
        table="ours_${case}_${peer}"
        rows="$WORK/$table.jsonl"
        msgs="$WORK/$table-messages"
        "$PY" "$PEERS" create "$WH" "$case" "$table" "$rows" >"$WORK/log" 2>&1 ||
            { cat "$WORK/log"; exit 1; }
        check "paimon write --prepare-only --message-version 14 into $table" \
            "$PAIMON" write "$WH/peers.db/$table" --from "$rows" --prepare-only \
            --out-dir "$msgs" --message-version 14
        check "$peer decodes our $case messages and encodes the same bytes" \
            "$PY" "$PEERS" same-bytes "$peer" \
            $([[ $peer == pypaimon ]] && echo "$WH peers.$table") "$msgs"/message-*.bin
        if [[ $peer == pypaimon ]]; then
            what="pypaimon decodes and commits our $case messages"
            cmd=("$PY" "$PEERS" commit "$WH" "peers.$table" "$msgs"/message-*.bin)
        else
            what="paimon-rust 0.4 decodes (same bytes back) and commits our $case messages"
            cmd=("$PY" "$PEERS" rust-bytes "$WH" "peers.$table" "$msgs"/message-*.bin)
        fi
        check "$what" "${cmd[@]}"
        check "pypaimon reads the rows of $table" \
            "$PY" "$PEERS" expect-rows "$WH" "peers.$table" "$rows"
    done
done

# paimon-rust 0.4 decodes pypaimon's v14 bytes and gives back the same bytes.
check "paimon-rust 0.4 re-encodes pypaimon's synthetic v14 message byte for byte" \
    "$PY" -c '
import sys
from pypaimon_rust.datafusion import CommitMessage
data = open(sys.argv[1], "rb").read()
sys.exit(CommitMessage.deserialize(data, version=14).serialize() != data)
' "$OUT/synthetic/message-0000.bin"

finish test-peers
