package org.paimonrs.oracle;

import java.io.PrintStream;
import java.time.Duration;
import org.apache.paimon.fs.Path;
import org.apache.paimon.operation.CleanOrphanFilesResult;
import org.apache.paimon.operation.LocalOrphanFilesClean;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.table.FileStoreTable;

/** Java's own snapshot expiry and orphan-file cleanup, run on a table as the oracle for ours. */
final class Maintenance {

    private Maintenance() {}

    /**
     * {@code expire TABLE_PATH --retain-max N --retain-min N [--max-deletes N] [--time-retained-ms N]}:
     * one {@code ExpireSnapshotsImpl.expire()} run; prints {"expired":N}.
     */
    static void expire(Args a, PrintStream out) {
        FileStoreTable t = Commands.open(a.positional(0));
        int n = t.newExpireSnapshots()
                .config(ExpireConfig.builder()
                        .snapshotRetainMax((int) a.getLong("--retain-max", Integer.MAX_VALUE))
                        .snapshotRetainMin((int) a.getLong("--retain-min", 10))
                        .snapshotMaxDeletes((int) a.getLong("--max-deletes", Integer.MAX_VALUE))
                        .snapshotTimeRetain(Duration.ofMillis(a.getLong("--time-retained-ms", 0)))
                        .build())
                .expire();
        out.println("{\"expired\":" + n + "}");
    }

    /**
     * {@code expire-partitions TABLE_PATH [--option k=v]...}: one run of the table's own
     * {@code PartitionExpire} (its {@code partition.expiration-*} options, plus the given ones,
     * with the check interval forced to zero so that it runs now), committed by Java; prints
     * each expired partition as {@code k=v,k=v}, one a line, in the order Java dropped them.
     */
    static void expirePartitions(Args a, PrintStream out) {
        FileStoreTable t = Commands.open(a.positional(0));
        java.util.Map<String, String> dyn = new java.util.HashMap<>();
        for (String kv : a.getAll("--option")) {
            int eq = kv.indexOf('=');
            dyn.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        dyn.put("partition.expiration-check-interval", "0 s");
        t = t.copy(dyn);
        org.apache.paimon.operation.PartitionExpire pe =
                t.store().newPartitionExpire("oracle-partition-expire", t);
        if (pe == null) {
            throw new IllegalArgumentException("partition.expiration-time is not set, or no partitions");
        }
        java.util.List<java.util.Map<String, String>> expired = pe.expire(Long.MAX_VALUE);
        if (expired != null) {
            for (java.util.Map<String, String> p : expired) {
                StringBuilder sb = new StringBuilder();
                for (java.util.Map.Entry<String, String> e : p.entrySet()) {
                    if (sb.length() > 0) {
                        sb.append(',');
                    }
                    sb.append(e.getKey()).append('=').append(e.getValue());
                }
                out.println(sb);
            }
        }
    }

    /**
     * {@code remove-orphan-files TABLE_PATH --older-than-ms N [--dry-run true]}: one
     * {@code LocalOrphanFilesClean.clean()} with files older than now minus N; prints each
     * deleted (or, dry, deletable) path, one a line.
     */
    static void removeOrphanFiles(Args a, PrintStream out) throws Exception {
        FileStoreTable t = Commands.open(a.positional(0));
        long olderThan = System.currentTimeMillis() - a.getLong("--older-than-ms", 86_400_000L);
        boolean dry = Boolean.parseBoolean(a.has("--dry-run") ? a.get("--dry-run") : "false");
        CleanOrphanFilesResult r = new LocalOrphanFilesClean(t, olderThan, dry).clean();
        for (Path p : r.getDeletedFilesPath()) {
            out.println(p.toUri().getPath());
        }
    }
}
