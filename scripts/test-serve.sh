#!/usr/bin/env bash
# `paimon serve` (the REST catalog server, issue 44) against pypaimon 2.1's REST catalog, with
# Java 1.4.2's RESTCatalog (scripts/java-oracle.sh) and our own REST client reading what
# pypaimon wrote:
#
#   1. pypaimon creates a database and a table through our server and writes two commits; it
#      reads back exactly its rows; Java and `paimon read` (metastore=rest) read the same rows;
#   2. a wrong token is refused;
#   3. a pypaimon writer and two Java writers commit into one table at once: every commit lands
#      once (snapshot count = commits) and every row is there;
#   4. pypaimon lists the partitions of a table Java wrote (in pages of 2) and they equal what
#      Java's RESTCatalog lists through us and Java's FileSystemCatalog on the files; it creates
#      a tag and a branch from it through us and reads them back, and Java sees them on the
#      files; Java's RESTCatalog lists the snapshots in pages (the snapshot files), lists
#      partitions by names (as its FileSystemCatalog does on the files) and renames the branch
#      (seen on the files); pypaimon drops a partition of another table Java wrote (its
#      truncating commit through us) and Java's FileSystemCatalog lists the others only;
#      pypaimon's alter_database is refused (501: a filesystem warehouse keeps no database
#      options);
#   5. over TLS (`--tls-cert`/`--tls-key`, a self-signed certificate made here with openssl):
#      pypaimon (the certificate as REQUESTS_CA_BUNDLE) and Java's RESTCatalog (a PKCS12
#      trust store made with keytool) write and read at https://; without the certificate they
#      are refused. Then mutual TLS (`--tls-client-ca`, a CA and client certificates made with
#      openssl): pypaimon with a client certificate reads the rows, without one it is refused,
#      curl with a certificate of another CA is refused; SIGHUP serves a renewed server
#      certificate, and a broken one is reported and ignored. (Flight SQL over TLS:
#      scripts/test-flight.sh.)
#   6. load, short (scripts/load-serve.sh runs it long): 8 clients for 10 s mixing pypaimon
#      commits and loadTable calls, pyarrow.flight queries and worker scans, and Java commits:
#      no error, no lost or doubled commit, peak RSS reported; a worker killed mid-stream gives
#      its client an error.
#
# Uses the peers venv of scripts/test-peers.sh (default target/peers-venv; PEERS_VENV to
# choose), making it if missing; builds the `paimon` CLI (PAIMON: use that binary instead); prints pass/fail counts and exits
# non-zero on any failure.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
START=$(date +%s)
PASS=0
FAIL=0
FAILED=()

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
    [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

check() {
    local name="$1"
    shift
    if "$@" >"$WORK/log" 2>&1; then
        PASS=$((PASS + 1))
        echo "PASS $name"
    else
        FAIL=$((FAIL + 1))
        FAILED+=("$name")
        echo "FAIL $name"
        sed 's/^/    /' "$WORK/log" | tail -n 20
    fi
}

source "$ROOT/scripts/peers-venv.sh"
PY=$(peers_venv) || exit 1
PYREST="$ROOT/interop/peers/pypaimon_rest.py"

if [[ -z "${PAIMON:-}" ]]; then # PAIMON: a `paimon` binary already built
    source "$ROOT/scripts/workspace-build.sh"
    PAIMON=$(ws_paimon) || exit 1
fi

NAME=rest_warehouse
WH="$WORK/$NAME"
mkdir -p "$WH"
TOKEN=tok-admin
printf '%s admin admin\n' "$TOKEN" >"$WORK/users"
"$PAIMON" serve "$WH" --rest-bind 127.0.0.1:0 --auth "$WORK/users" >"$WORK/url" 2>"$WORK/serve.log" &
SERVER_PID=$!
for _ in $(seq 100); do
    [[ -s "$WORK/url" ]] && break
    sleep 0.1
done
URL="$(head -n1 "$WORK/url")"
if [[ -z "$URL" ]]; then
    cat "$WORK/serve.log"
    echo "paimon serve did not start"
    exit 1
fi
echo "paimon serve at $URL"

expected() { # FROM TO TAG: the rows (id, 'TAG-id') as JSON lines
    for ((i = $1; i < $2; i++)); do printf '{"id":%d,"v":"%s-%d"}\n' "$i" "$3" "$i"; done
}
same_rows() { # FILE_A FILE_B: the same rows, whatever the order and spacing
    "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
def rows(f):
    return sorted((r["id"], r["v"]) for r in map(json.loads, filter(str.strip, open(f))))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a != b:
    sys.exit(f"{sys.argv[1]}: {a}\n{sys.argv[2]}: {b}")
PYEOF
}
snapshots() { ls "$WH/$1.db/$2/snapshot" | grep -c '^snapshot-'; }

# 1.
{ expected 0 5 py; expected 5 8 py; } >"$WORK/py.expected"
check "pypaimon creates a table and writes through paimon serve" \
    "$PY" "$PYREST" write "$URL" "$NAME" "$TOKEN" py_db.t 0 5
check "pypaimon commits a second time" \
    "$PY" "$PYREST" write "$URL" "$NAME" "$TOKEN" py_db.t 5 8
check "two snapshots" test "$(snapshots py_db t)" = 2
check "pypaimon reads back its rows" bash -c \
    '"$1" "$2" dump "$3" "$4" "$5" py_db.t >"$6"' _ "$PY" "$PYREST" "$URL" "$NAME" "$TOKEN" \
    "$WORK/py.dump"
check "... exactly the rows it wrote" same_rows "$WORK/py.dump" "$WORK/py.expected"
check "Java's RESTCatalog reads pypaimon's rows" bash -c \
    '"$1/scripts/java-oracle.sh" rest-dump "$2" py_db.t --token "$3" >"$4"' _ "$ROOT" "$URL" \
    "$TOKEN" "$WORK/java.dump"
check "... the same rows" same_rows "$WORK/java.dump" "$WORK/py.expected"
check "paimon read (metastore=rest) reads pypaimon's rows" bash -c \
    '"$1" read py_db.t --format jsonl --catalog-option metastore=rest --catalog-option uri="$2" \
       --catalog-option warehouse="$3" --catalog-option token="$4" >"$5"' _ "$PAIMON" "$URL" \
    "$NAME" "$TOKEN" "$WORK/ours.dump"
check "... the same rows" same_rows "$WORK/ours.dump" "$WORK/py.expected"

# 2.
check "a wrong token is refused" bash -c \
    '! "$1" "$2" dump "$3" "$4" not-the-token py_db.t 2>"$5" && grep -q "401\|uthoriz" "$5"' _ \
    "$PY" "$PYREST" "$URL" "$NAME" "$WORK/wrong.err"

# 3.
check "the race table exists" \
    "$PY" "$PYREST" write "$URL" "$NAME" "$TOKEN" race.t 0 1
"$PY" "$PYREST" write "$URL" "$NAME" "$TOKEN" race.t 100 110 >"$WORK/w1.log" 2>&1 &
P1=$!
"$ROOT/scripts/java-oracle.sh" rest-write "$URL" race.t --from 200 --to 210 --token "$TOKEN" >"$WORK/w2.log" 2>&1 &
P2=$!
"$ROOT/scripts/java-oracle.sh" rest-write "$URL" race.t --from 300 --to 310 --token "$TOKEN" >"$WORK/w3.log" 2>&1 &
P3=$!
check "the pypaimon writer commits" wait $P1
check "the first Java writer commits" wait $P2
check "the second Java writer commits" wait $P3
cat "$WORK"/w[123].log
check "every commit lands once: 4 snapshots" test "$(snapshots race t)" = 4
{ expected 0 1 py; expected 100 110 py; expected 200 210 java; expected 300 310 java; } \
    >"$WORK/race.expected"
check "pypaimon reads every row" bash -c \
    '"$1" "$2" dump "$3" "$4" "$5" race.t >"$6"' _ "$PY" "$PYREST" "$URL" "$NAME" "$TOKEN" \
    "$WORK/race.dump"
check "... exactly once" same_rows "$WORK/race.dump" "$WORK/race.expected"

# 4.
JREST=(--catalog-option metastore=rest --catalog-option "uri=$URL" --catalog-option token.provider=bear
    --catalog-option "token=$TOKEN" --catalog-option "warehouse=$NAME")
JFS=(--catalog-option "warehouse=$WH")
same_json_lines() { # FILE_A FILE_B: the same JSON values line by line
    "$PY" - "$1" "$2" <<'PYEOF'
import json, sys
a, b = ([json.loads(l) for l in open(f) if l.strip()] for f in sys.argv[1:3])
if a != b or not a:
    sys.exit(f"{sys.argv[1]}: {a}\n{sys.argv[2]}: {b}")
PYEOF
}
check "Java writes a partitioned table through paimon serve" \
    "$ROOT/scripts/java-oracle.sh" catalog-write "${JREST[@]}" parts_db.t --from 0 --to 20 \
    --commits 2 --parts 3
check "pypaimon lists its partitions in pages" bash -c \
    '"$1" "$2" partitions "$3" "$4" "$5" parts_db.t >"$6"' _ "$PY" "$PYREST" "$URL" "$NAME" \
    "$TOKEN" "$WORK/py.parts"
check "Java's RESTCatalog lists them through us" bash -c \
    '"$1/scripts/java-oracle.sh" catalog-meta "${@:3}" parts_db.t partitions >"$2"' _ "$ROOT" \
    "$WORK/java.parts" "${JREST[@]}"
check "Java's FileSystemCatalog lists them on the files" bash -c \
    '"$1/scripts/java-oracle.sh" catalog-meta "${@:3}" parts_db.t partitions >"$2"' _ "$ROOT" \
    "$WORK/fs.parts" "${JFS[@]}"
check "... pypaimon's partitions are Java's" same_json_lines "$WORK/py.parts" "$WORK/fs.parts"
check "... and Java's through us" same_json_lines "$WORK/java.parts" "$WORK/fs.parts"
check "pypaimon creates a tag and a branch through us and reads them back" bash -c \
    '"$1" "$2" versions "$3" "$4" "$5" parts_db.t >"$6" && cat "$6" &&
     grep -qx "{\"tags\":\[\"py_t\"\],\"tag_snapshot\":1,\"branches\":\[\"py_b\"\]}" "$6"' \
    _ "$PY" "$PYREST" "$URL" "$NAME" "$TOKEN" "$WORK/py.versions"
check "Java sees pypaimon's tag and branch on the files" bash -c \
    'test "$("$1/scripts/java-oracle.sh" catalog-meta "${@:2}" parts_db.t table-tags)" = "[\"py_t\"]" &&
     test "$("$1/scripts/java-oracle.sh" catalog-meta "${@:2}" parts_db.t table-branches)" = "[\"py_b\"]"' \
    _ "$ROOT" "${JFS[@]}"
SNAPSHOT_PAGES="$(ls "$WH/parts_db.db/t/snapshot" | sed -n 's/^snapshot-//p' | sort -n | sed 's/.*/[&]/')"
check "Java's RESTCatalog lists the snapshots through us in pages of 1: the snapshot files" bash -c \
    'test "$("$1/scripts/java-oracle.sh" catalog-meta "${@:3}" parts_db.t snapshots-paged --max 1)" = "$2"' \
    _ "$ROOT" "$SNAPSHOT_PAGES" "${JREST[@]}"
check "Java lists partitions by names through us as its FileSystemCatalog does" bash -c \
    '"$1/scripts/java-oracle.sh" catalog-meta "${@:4}" parts_db.t partitions-by-names --specs "p=2;p=0;p=9" >"$2.rest" &&
     "$1/scripts/java-oracle.sh" catalog-meta --catalog-option "warehouse=$3" parts_db.t partitions-by-names --specs "p=2;p=0;p=9" >"$2.fs" &&
     cat "$2.rest" && test "$(wc -l <"$2.rest")" = 2 && cmp "$2.rest" "$2.fs"' _ "$ROOT" "$WORK/by-names" "$WH" "${JREST[@]}"
check "Java renames pypaimon's branch through us; its FileSystemCatalog sees the new name" bash -c \
    '"$1/scripts/java-oracle.sh" catalog-meta "${@:3}" parts_db.t rename-branch py_b --to py_renamed &&
     test "$("$1/scripts/java-oracle.sh" catalog-meta --catalog-option "warehouse=$2" parts_db.t table-branches)" = "[\"py_renamed\"]"' \
    _ "$ROOT" "$WH" "${JREST[@]}"
check "renaming a branch that does not exist is refused" bash -c \
    '! "$1/scripts/java-oracle.sh" catalog-meta "${@:3}" parts_db.t rename-branch py_b --to other 2>"$2" &&
     grep -q "py_b" "$2"' _ "$ROOT" "$WORK/rename.err" "${JREST[@]}"
check "Java writes a second partitioned table through paimon serve" \
    "$ROOT/scripts/java-oracle.sh" catalog-write "${JREST[@]}" parts_db.d --from 0 --to 9 \
    --parts 3
check "pypaimon drops partition p=1 through us; Java's FileSystemCatalog lists p=0 and p=2" bash -c \
    '"$1" "$2" drop-partitions "$3" "$4" "$5" parts_db.d "p=1" &&
     "$6/scripts/java-oracle.sh" catalog-meta --catalog-option "warehouse=$7" parts_db.d partitions >"$8" &&
     cat "$8" && "$1" -c "import json, sys; sys.exit([json.loads(l)[\"spec\"][\"p\"] for l in open(sys.argv[1])] != [\"0\", \"2\"])" "$8"' \
    _ "$PY" "$PYREST" "$URL" "$NAME" "$TOKEN" "$ROOT" "$WH" "$WORK/dropped.parts"
check "pypaimon's alter_database is refused: the filesystem warehouse keeps no database options" bash -c \
    '"$1" "$2" alter-database "$3" "$4" "$5" parts_db k=v >"$6"; cat "$6";
     grep -q "\"error\": \"NotImplementedException\"" "$6" && grep -q "keeps no database options" "$6"' \
    _ "$PY" "$PYREST" "$URL" "$NAME" "$TOKEN" "$WORK/alter.out"

kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
STATUS=$?
SERVER_PID=""
check "paimon serve stops on SIGTERM with status 0" test "$STATUS" = 0

# 5.
TLS_START=$(date +%s)
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -keyout "$WORK/tls.key" -out "$WORK/tls.crt" \
    -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
rm -f "$WORK/trust.p12"
keytool -importcert -noprompt -alias paimon-serve -file "$WORK/tls.crt" -keystore "$WORK/trust.p12" \
    -storetype PKCS12 -storepass changeit >/dev/null 2>&1
JAVA_TRUST="-Djavax.net.ssl.trustStore=$WORK/trust.p12 -Djavax.net.ssl.trustStorePassword=changeit -Djavax.net.ssl.trustStoreType=PKCS12"
mkdir -p "$WORK/tls/$NAME"
"$PAIMON" serve "$WORK/tls/$NAME" --rest-bind 127.0.0.1:0 --auth "$WORK/users" \
    --tls-cert "$WORK/tls.crt" --tls-key "$WORK/tls.key" >"$WORK/tls.url" 2>"$WORK/tls.log" &
SERVER_PID=$!
for _ in $(seq 100); do
    [[ -s "$WORK/tls.url" ]] && break
    sleep 0.1
done
TURL="$(head -n1 "$WORK/tls.url")"
check "paimon serve --tls-cert --tls-key prints an https:// URL" bash -c '[[ "$1" == https://127.0.0.1:* ]]' _ "$TURL"
{ expected 0 4 py; expected 10 13 java; } >"$WORK/tls.expected"
check "pypaimon writes over https, trusting the certificate" env REQUESTS_CA_BUNDLE="$WORK/tls.crt" \
    "$PY" "$PYREST" write "$TURL" "$NAME" "$TOKEN" tls_db.t 0 4
check "Java's RESTCatalog writes over https, trusting the certificate" env ORACLE_JAVA_OPTS="$JAVA_TRUST" \
    "$ROOT/scripts/java-oracle.sh" rest-write "$TURL" tls_db.t --from 10 --to 13 --token "$TOKEN"
check "Java reads both writers' rows over https" bash -c \
    'ORACLE_JAVA_OPTS="$1" "$2/scripts/java-oracle.sh" rest-dump "$3" tls_db.t --token "$4" >"$5"' _ \
    "$JAVA_TRUST" "$ROOT" "$TURL" "$TOKEN" "$WORK/tls.java.dump"
check "... exactly those rows" same_rows "$WORK/tls.java.dump" "$WORK/tls.expected"
check "pypaimon reads them over https" bash -c \
    'REQUESTS_CA_BUNDLE="$1" "$2" "$3" dump "$4" "$5" "$6" tls_db.t >"$7"' _ "$WORK/tls.crt" "$PY" \
    "$PYREST" "$TURL" "$NAME" "$TOKEN" "$WORK/tls.py.dump"
check "... exactly those rows" same_rows "$WORK/tls.py.dump" "$WORK/tls.expected"
check "pypaimon without the certificate is refused" bash -c \
    '! "$1" "$2" dump "$3" "$4" "$5" tls_db.t >/dev/null 2>"$6" && grep -qi "certificate\|SSL" "$6"' _ \
    "$PY" "$PYREST" "$TURL" "$NAME" "$TOKEN" "$WORK/tls.untrusted"
check "Java without the certificate is refused" bash -c \
    '! "$1/scripts/java-oracle.sh" rest-dump "$2" tls_db.t --token "$3" >/dev/null 2>"$4" &&
     grep -q "PKIX\|SSLHandshake" "$4"' _ "$ROOT" "$TURL" "$TOKEN" "$WORK/tls.java.untrusted"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
STATUS=$?
SERVER_PID=""
check "paimon serve over TLS stops on SIGTERM with status 0" test "$STATUS" = 0

# 5b. Mutual TLS (--tls-client-ca) over the same warehouse, and SIGHUP's reload.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -keyout "$WORK/ca.key" -out "$WORK/ca.crt" \
    -subj "/CN=paimon test client CA" 2>/dev/null
client_cert() { # NAME CA: a client certificate NAME.crt/.key issued by CA.crt/.key
    openssl req -new -newkey rsa:2048 -nodes -keyout "$WORK/$1.key" -out "$WORK/$1.csr" \
        -subj "/CN=$1" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n' >"$WORK/client.ext"
    openssl x509 -req -in "$WORK/$1.csr" -CA "$WORK/$2.crt" -CAkey "$WORK/$2.key" \
        -CAcreateserial -days 1 -out "$WORK/$1.crt" -extfile "$WORK/client.ext" 2>/dev/null
}
client_cert alice ca
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -keyout "$WORK/other-ca.key" \
    -out "$WORK/other-ca.crt" -subj "/CN=another CA" 2>/dev/null
client_cert mallory other-ca
echo junk >"$WORK/junk.pem"
check "a client CA file without a certificate stops paimon serve, naming the file" bash -c \
    '! "$1" serve "$2" --rest-bind 127.0.0.1:0 --tls-cert "$3" --tls-key "$4" --tls-client-ca "$5" \
       >/dev/null 2>"$6" && grep -q "client CA file $5" "$6"' _ "$PAIMON" "$WORK/tls/$NAME" \
    "$WORK/tls.crt" "$WORK/tls.key" "$WORK/junk.pem" "$WORK/mtls.bad"
cp "$WORK/tls.crt" "$WORK/served.crt"
cp "$WORK/tls.key" "$WORK/served.key"
"$PAIMON" serve "$WORK/tls/$NAME" --rest-bind 127.0.0.1:0 --auth "$WORK/users" \
    --tls-cert "$WORK/served.crt" --tls-key "$WORK/served.key" --tls-client-ca "$WORK/ca.crt" \
    >"$WORK/mtls.url" 2>"$WORK/mtls.log" &
SERVER_PID=$!
for _ in $(seq 100); do
    [[ -s "$WORK/mtls.url" ]] && break
    sleep 0.1
done
MURL="$(head -n1 "$WORK/mtls.url")"
check "pypaimon with a client certificate of the CA reads the rows over mutual TLS" bash -c \
    'REQUESTS_CA_BUNDLE="$1" CLIENT_CERT="$2" CLIENT_KEY="$3" "$4" "$5" dump "$6" "$7" "$8" tls_db.t \
       >"$9"' _ "$WORK/tls.crt" "$WORK/alice.crt" "$WORK/alice.key" "$PY" "$PYREST" "$MURL" "$NAME" \
    "$TOKEN" "$WORK/mtls.py.dump"
check "... exactly those rows" same_rows "$WORK/mtls.py.dump" "$WORK/tls.expected"
check "pypaimon without a client certificate is refused" bash -c \
    '! REQUESTS_CA_BUNDLE="$1" "$2" "$3" dump "$4" "$5" "$6" tls_db.t >/dev/null 2>"$7"' _ \
    "$WORK/tls.crt" "$PY" "$PYREST" "$MURL" "$NAME" "$TOKEN" "$WORK/mtls.nocert"
config_url="$MURL/v1/config?warehouse=$NAME"
check "curl with a certificate of another CA is refused" bash -c \
    '! curl -sf --cacert "$1" --cert "$2" --key "$3" -H "Authorization: Bearer $4" "$5"' _ \
    "$WORK/tls.crt" "$WORK/mallory.crt" "$WORK/mallory.key" "$TOKEN" "$config_url"
check "... and the server still serves curl with alice's certificate" bash -c \
    'curl -sf --cacert "$1" --cert "$2" --key "$3" -H "Authorization: Bearer $4" "$5" | grep -q "\"prefix\":\"$6\""' \
    _ "$WORK/tls.crt" "$WORK/alice.crt" "$WORK/alice.key" "$TOKEN" "$config_url" "$NAME"
# A renewed server certificate, taken on SIGHUP without a restart.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -keyout "$WORK/renewed.key" \
    -out "$WORK/renewed.crt" -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
cp "$WORK/renewed.crt" "$WORK/served.crt"
cp "$WORK/renewed.key" "$WORK/served.key"
kill -HUP "$SERVER_PID"
for _ in $(seq 50); do
    grep -q "TLS reloaded" "$WORK/mtls.log" && break
    sleep 0.1
done
check "after SIGHUP the server presents the renewed certificate" bash -c \
    'curl -sf --cacert "$1" --cert "$2" --key "$3" -H "Authorization: Bearer $4" "$5" >/dev/null' _ \
    "$WORK/renewed.crt" "$WORK/alice.crt" "$WORK/alice.key" "$TOKEN" "$config_url"
check "... and no longer the old one" bash -c \
    '! curl -sf --cacert "$1" --cert "$2" --key "$3" -H "Authorization: Bearer $4" "$5" >/dev/null' _ \
    "$WORK/tls.crt" "$WORK/alice.crt" "$WORK/alice.key" "$TOKEN" "$config_url"
echo junk >"$WORK/served.key"
kill -HUP "$SERVER_PID"
for _ in $(seq 50); do
    grep -q "TLS not reloaded" "$WORK/mtls.log" && break
    sleep 0.1
done
check "a SIGHUP with a broken key file is reported and keeps the renewed certificate" bash -c \
    'grep -q "TLS not reloaded.*$6" "$7" &&
     curl -sf --cacert "$1" --cert "$2" --key "$3" -H "Authorization: Bearer $4" "$5" >/dev/null' _ \
    "$WORK/renewed.crt" "$WORK/alice.crt" "$WORK/alice.key" "$TOKEN" "$config_url" \
    "$WORK/served.key" "$WORK/mtls.log"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID"
STATUS=$?
SERVER_PID=""
check "paimon serve over mutual TLS stops on SIGTERM with status 0" test "$STATUS" = 0
echo "test-serve: TLS checks took $(($(date +%s) - TLS_START)) s"

# 6.
LOAD_START=$(date +%s)
check "load: 8 clients for 10 s, no error, every commit once, a killed worker is an error" bash -c \
    'PAIMON="$1" ORACLE="$2/scripts/java-oracle.sh" CLIENTS=8 LOAD_SECONDS=10 BIG_ROWS=300000 \
       "$3" "$2/crates/paimon-serve/tests/python/load_clients.py" | tee "$4"' _ "$PAIMON" "$ROOT" \
    "$PY" "$WORK/load.json"
cat "$WORK/load.json"
echo "test-serve: the load step took $(($(date +%s) - LOAD_START)) s"

echo "test-serve: $PASS passed, $FAIL failed in $(($(date +%s) - START)) s"
if ((FAIL > 0)); then
    printf '  failed: %s\n' "${FAILED[@]}"
    exit 1
fi
