#!/usr/bin/env bash
# The Hive catalog's tests against a real Hive Metastore: resolves Hive's standalone metastore
# 4.0.1 from Maven Central through interop/hive-metastore/pom.xml, makes its embedded Derby
# database with Hive's own schematool (the schema scripts of the metastore's distribution,
# transaction tables included, so the metastore grants table locks), starts it on a free
# loopback port with its database and warehouse in a temp dir, runs the Hive tests of paimon-rs
# with the metastore in PAIMON_HIVE_TEST_URI (and in PAIMON_HIVE_TEST_CP its classpath with
# interop/hive-metastore/HmsView.java compiled, the metastore's own Java client), then stops it and
# removes the temp dir. PAIMON_HIVE_TEST_REQUIRED=1 makes a test without the metastore fail
# instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

dir="$(mktemp -d /tmp/paimon-hive-hms.XXXXXX)"
hms=""
cleanup() {
    if [[ -n "$hms" ]]; then
        kill "$hms" 2>/dev/null || true
        wait "$hms" 2>/dev/null || true
    fi
    rm -rf "$dir"
}
trap cleanup EXIT
mvn -B -q -f interop/hive-metastore/pom.xml dependency:build-classpath \
    -Dmdep.outputFile="$dir/classpath.txt" >"$dir/mvn.log" 2>&1 || {
    cat "$dir/mvn.log" >&2
    exit 1
}
echo "test-hive: metastore classpath resolved after $((SECONDS - start)) s"
[[ "${1:-}" == --prepare ]] && { echo "test-hive: prepared"; exit 0; }
# The classpath's jars; the distribution (its one tar.gz) only for its Derby schema scripts.
dist=$(tr ':' '\n' <"$dir/classpath.txt" | grep '\.tar\.gz$') || {
    echo "test-hive: no metastore distribution (tar.gz) in the resolved classpath" >&2
    exit 1
}
tr ':' '\n' <"$dir/classpath.txt" | grep -v '\.tar\.gz$' | paste -sd: >"$dir/jars.txt"
tar -xzf "$dist" -C "$dir" --wildcards '*/scripts/metastore/upgrade/derby/*'

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$dir/conf"
cat >"$dir/conf/metastore-site.xml" <<EOF
<configuration>
  <property><name>javax.jdo.option.ConnectionURL</name><value>jdbc:derby:;databaseName=$dir/metastore_db;create=true</value></property>
  <property><name>javax.jdo.option.ConnectionDriverName</name><value>org.apache.derby.jdbc.EmbeddedDriver</value></property>
  <property><name>datanucleus.schema.autoCreateAll</name><value>false</value></property>
  <property><name>metastore.schema.verification</name><value>true</value></property>
  <!-- No Hive 4 metadata transformer: it turns a managed non-ACID table (what Java's
       HiveCatalog and we register) into an external one, whose drop keeps its files. -->
  <property><name>metastore.metadata.transformer.class</name><value> </value></property>
  <property><name>metastore.warehouse.dir</name><value>file://$dir/warehouse</value></property>
  <property><name>metastore.thrift.bind.host</name><value>127.0.0.1</value></property>
  <property><name>metastore.event.db.notification.api.auth</name><value>false</value></property>
</configuration>
EOF
cp_jars="$dir/conf:$(cat "$dir/jars.txt")"
# Hive's schema, transaction tables included, made by Hive's schematool from the scripts of the
# distribution (METASTORE_HOME is where it looks for them).
METASTORE_HOME="$(echo "$dir"/apache-hive-metastore-*-bin)" java -Dderby.stream.error.file="$dir/derby.log" \
    -cp "$cp_jars" org.apache.hadoop.hive.metastore.tools.schematool.MetastoreSchemaTool \
    -dbType derby -initSchema >"$dir/schematool.log" 2>&1 || {
    tail -50 "$dir/schematool.log" >&2
    exit 1
}
echo "test-hive: metastore schema made after $((SECONDS - start)) s"
java -Dderby.stream.error.file="$dir/derby.log" -cp "$cp_jars" \
    org.apache.hadoop.hive.metastore.HiveMetaStore \
    -p "$port" </dev/null >"$dir/metastore.log" 2>&1 &
hms=$!
up=""
for _ in $(seq 1 600); do
    if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        up=1
        break
    fi
    kill -0 "$hms" 2>/dev/null || break
    sleep 0.5
done
if [[ -z "$up" ]]; then
    echo "test-hive: the metastore did not start:" >&2
    tail -50 "$dir/metastore.log" >&2
    exit 1
fi
echo "test-hive: metastore on 127.0.0.1:$port after $((SECONDS - start)) s"

export PAIMON_HIVE_TEST_URI="thrift://127.0.0.1:$port"
# HmsView compiled once (the tests run it a dozen times), ahead of the metastore's jars.
javac -nowarn -d "$dir/hmsview" -cp "$(cat "$dir/jars.txt")" interop/hive-metastore/HmsView.java 2>"$dir/javac.log" || {
    cat "$dir/javac.log" >&2
    exit 1
}
export PAIMON_HIVE_TEST_CP="$dir/hmsview:$(cat "$dir/jars.txt")"
export PAIMON_HIVE_TEST_REQUIRED=1
rc=0
# The catalog alone (paimon-meta), then through the facade with writes, the metastore's own
# client and Java's reads (one oracle answers them: scripts/with-oracle.sh).
# Both from the workspace build (scripts/workspace-build.sh), where the CLI turns `hive` on.
source scripts/workspace-build.sh
ws_test paimon-meta lib metastore_tests || rc=$?
scripts/with-oracle.sh bash -c 'source scripts/workspace-build.sh && ws_test paimon-rs hive_catalog' || rc=$?
if [[ $rc -ne 0 ]]; then
    echo "test-hive: metastore log tail:" >&2
    grep -v '^\s*at ' "$dir/metastore.log" | tail -30 >&2
fi
echo "test-hive: took $((SECONDS - start)) s"
exit "$rc"
