// The metastore's own view of a database or table, through Hive's Java client
// (HiveMetaStoreClient of hive-standalone-metastore 4.0.1), for the Hive catalog tests: run as a
// single-file program on the metastore's classpath, or compiled (scripts/test-hive.sh compiles
// it and puts it with that classpath in PAIMON_HIVE_TEST_CP: `java -cp "$CP" HmsView URI ...`):
//   java -cp "$CP" interop/hive-metastore/HmsView.java URI table DB TABLE
//   java -cp "$CP" interop/hive-metastore/HmsView.java URI database DB
//   java -cp "$CP" interop/hive-metastore/HmsView.java URI tables DB
//   java -cp "$CP" interop/hive-metastore/HmsView.java URI drop DB TABLE   (drops it, with data)
//   java -cp "$CP" interop/hive-metastore/HmsView.java URI partitions DB TABLE
//   java -cp "$CP" interop/hive-metastore/HmsView.java URI locks DB TABLE
//   java -cp "$CP" interop/hive-metastore/HmsView.java URI hold DB TABLE MILLIS|-
// Prints one `key=value` per line, sorted, so a test compares what was registered. `hold`
// takes an EXCLUSIVE table lock (as Paimon's HiveCatalogLock does), prints `locked=ID` at
// once, holds it MILLIS ms (with `-`: until its stdin closes), releases it and prints
// `unlocked=ID`.

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;
import org.apache.hadoop.hive.metastore.api.Database;
import org.apache.hadoop.hive.metastore.api.FieldSchema;
import org.apache.hadoop.hive.metastore.api.LockComponent;
import org.apache.hadoop.hive.metastore.api.LockLevel;
import org.apache.hadoop.hive.metastore.api.LockRequest;
import org.apache.hadoop.hive.metastore.api.LockResponse;
import org.apache.hadoop.hive.metastore.api.LockState;
import org.apache.hadoop.hive.metastore.api.LockType;
import org.apache.hadoop.hive.metastore.api.Partition;
import org.apache.hadoop.hive.metastore.api.ShowLocksRequest;
import org.apache.hadoop.hive.metastore.api.ShowLocksResponseElement;
import org.apache.hadoop.hive.metastore.api.Table;
import org.apache.hadoop.hive.metastore.conf.MetastoreConf;

public class HmsView {
    public static void main(String[] args) throws Exception {
        Configuration conf = MetastoreConf.newMetastoreConf();
        MetastoreConf.setVar(conf, MetastoreConf.ConfVars.THRIFT_URIS, args[0]);
        HiveMetaStoreClient client = new HiveMetaStoreClient(conf);
        List<String> out = new ArrayList<>();
        switch (args[1]) {
            case "table": {
                Table t = client.getTable(args[2], args[3]);
                out.add("name=" + t.getDbName() + "." + t.getTableName());
                out.add("tableType=" + t.getTableType());
                out.add("owner=" + t.getOwner());
                out.add("location=" + t.getSd().getLocation());
                out.add("inputFormat=" + t.getSd().getInputFormat());
                out.add("outputFormat=" + t.getSd().getOutputFormat());
                out.add("serde=" + t.getSd().getSerdeInfo().getSerializationLib());
                out.add("partitionKeys=" + t.getPartitionKeys().size());
                int i = 0;
                for (FieldSchema f : t.getSd().getCols()) {
                    out.add(String.format("col%02d=%s:%s:%s", i++, f.getName(), f.getType(), f.getComment()));
                }
                for (Map.Entry<String, String> e : t.getParameters().entrySet()) {
                    // The metastore's own bookkeeping (its DDL time, statistics) is not ours.
                    if (!e.getKey().equals("transient_lastDdlTime")
                            && !e.getKey().startsWith("numFiles")
                            && !e.getKey().startsWith("totalSize")
                            && !e.getKey().equals("COLUMN_STATS_ACCURATE")) {
                        out.add("param." + e.getKey() + "=" + e.getValue());
                    }
                }
                break;
            }
            case "database": {
                Database d = client.getDatabase(args[2]);
                out.add("name=" + d.getName());
                out.add("location=" + d.getLocationUri());
                out.add("description=" + d.getDescription());
                for (Map.Entry<String, String> e : d.getParameters().entrySet()) {
                    out.add("param." + e.getKey() + "=" + e.getValue());
                }
                break;
            }
            case "tables":
                for (String t : client.getAllTables(args[2])) {
                    out.add("table=" + t);
                }
                break;
            case "partitions": {
                // Each partition's name (as Hive makes it from the keys and values) and location.
                Table t = client.getTable(args[2], args[3]);
                List<String> keys = new ArrayList<>();
                for (FieldSchema k : t.getPartitionKeys()) {
                    keys.add(k.getName());
                }
                for (Partition p : client.listPartitions(args[2], args[3], (short) -1)) {
                    String name = org.apache.hadoop.hive.metastore.Warehouse.makePartName(
                            t.getPartitionKeys(), p.getValues());
                    out.add("partition=" + name + " location=" + p.getSd().getLocation()
                            + " inputFormat=" + p.getSd().getInputFormat()
                            + " cols=" + p.getSd().getCols().size());
                }
                break;
            }
            case "locks": {
                ShowLocksRequest req = new ShowLocksRequest();
                req.setDbname(args[2]);
                req.setTablename(args[3]);
                for (ShowLocksResponseElement l : client.showLocks(req).getLocks()) {
                    out.add("lock=" + l.getDbname() + "." + l.getTablename() + " " + l.getType()
                            + " " + l.getState() + " user=" + l.getUser());
                }
                break;
            }
            case "hold": {
                LockComponent c = new LockComponent(LockType.EXCLUSIVE, LockLevel.TABLE, args[2]);
                c.setTablename(args[3]);
                LockRequest req = new LockRequest(Collections.singletonList(c), "hmsview", "localhost");
                LockResponse r = client.lock(req);
                if (r.getState() != LockState.ACQUIRED) {
                    throw new IllegalStateException("lock not acquired: " + r);
                }
                System.out.println("locked=" + r.getLockid());
                System.out.flush();
                if (args[4].equals("-")) {
                    while (System.in.read() >= 0) {
                        // held until stdin closes
                    }
                } else {
                    Thread.sleep(Long.parseLong(args[4]));
                }
                client.unlock(r.getLockid());
                System.out.println("unlocked=" + r.getLockid());
                break;
            }
            case "drop":
                client.dropTable(args[2], args[3], true, false);
                out.add("dropped=" + args[2] + "." + args[3]);
                break;
            default:
                throw new IllegalArgumentException("unknown command " + args[1]);
        }
        client.close();
        Collections.sort(out);
        for (String l : out) {
            System.out.println(l);
        }
    }
}
