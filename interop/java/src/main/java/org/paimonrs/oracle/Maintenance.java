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
