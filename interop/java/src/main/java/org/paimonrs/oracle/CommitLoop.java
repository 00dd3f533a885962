package org.paimonrs.oracle;

import org.apache.paimon.append.AppendCompactCoordinator;
import org.apache.paimon.append.AppendCompactTask;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactCoordinator;
import org.apache.paimon.append.dataevolution.DataEvolutionCompactTask;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.operation.BaseAppendFileStoreWrite;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.io.PrintStream;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * {@code commit-loop TABLE_PATH --seconds S [--retain N] [--seed N] [--rows N] [--rounds N]}:
 * keeps committing appends, every 4th round a full compaction and every 3rd an expiration down to
 * {@code --retain} snapshots (default 3), until S seconds have passed or N rounds ran. A missing table is created
 * as {@code (id BIGINT NOT NULL PK, v STRING, n INT)} with 2 buckets. Prints one JSON line per
 * action: {"action":"append"|"compact"|"expire","snapshot":N,...}; a compaction that loses to
 * another compactor prints {"action":"compact-conflict",...} and the loop goes on.
 */
final class CommitLoop {

    private CommitLoop() {}

    static void run(Args a, PrintStream out) throws Exception {
        String path = a.positional(0);
        long seconds = a.getLong("--seconds", 10);
        int retain = (int) a.getLong("--retain", 3);
        int rowsPerCommit = (int) a.getLong("--rows", 20);
        Random rnd = new Random(a.getLong("--seed", 7));
        String abs = Paths.get(path).toAbsolutePath().normalize().toString();
        SchemaManager sm = new SchemaManager(LocalFileIO.create(), new Path(abs));
        if (!sm.latest().isPresent()) {
            sm.createTable(Schema.newBuilder()
                    .column("id", DataTypes.BIGINT().notNull())
                    .column("v", DataTypes.STRING())
                    .column("n", DataTypes.INT())
                    .primaryKey("id")
                    .option("bucket", "2")
                    .build());
        }
        FileStoreTable table = Commands.open(path);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        long round = 0;
        long nextId = 0;
        long rounds = a.getLong("--rounds", Long.MAX_VALUE);
        // --write-only: the appends only write level-0 files (no compaction on write), so a
        // compaction afterwards always has files to merge.
        boolean writeOnly = a.has("--write-only");
        while (round < rounds && System.nanoTime() < deadline) {
            round++;
            table = Commands.open(path);
            RowType rt = table.rowType();
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i < rowsPerCommit; i++) {
                long seq = table.primaryKeys().isEmpty() ? nextId++ : rnd.nextInt(1000);
                rows.add(Generated.row(rt, seq, rnd));
            }
            Fx.commit(writeOnly ? table.copy(Map.of("write-only", "true")) : table, rows);
            emit(out, "append", table);
            if (round % 4 == 0) {
                try {
                    compact(table);
                    emit(out, "compact", table);
                } catch (RuntimeException e) {
                    // Another compactor (the soak's `paimon compact`) replaced the files first:
                    // Java's conflict detection gives up and commits nothing.
                    if (!isConflict(e)) {
                        throw e;
                    }
                    emit(out, "compact-conflict", table);
                }
            }
            if (round % 3 == 0) {
                int n = Fx.expire(table, retain);
                out.println("{\"action\":\"expire\",\"expired\":" + n + ",\"snapshot\":"
                        + latest(table) + "}");
                out.flush();
            }
        }
    }

    /**
     * {@code compact TABLE_PATH [--minor]}: one full compaction (primary-key and bucketed
     * tables) or append compaction (unaware-bucket tables; Java's data-evolution compaction on
     * data-evolution tables), committed by Java; with {@code
     * --minor}, each bucket's writer compacts as it would after a write (universal compaction
     * on primary-key tables). Prints {"action":"compact","snapshot":N}.
     */
    static void compactOnce(Args a, PrintStream out) throws Exception {
        FileStoreTable table = Commands.open(a.positional(0));
        if (a.has("--minor")) {
            Fx.minorCompact(table);
            emit(out, "compact", Commands.open(a.positional(0)));
            return;
        }
        compact(table);
        emit(out, "compact", Commands.open(a.positional(0)));
    }

    private static void compact(FileStoreTable table) throws Exception {
        boolean unawareAppend = table.primaryKeys().isEmpty()
                && table.coreOptions().bucket() == -1;
        if (!unawareAppend) {
            Fx.fullCompact(table);
            return;
        }
        if (table.coreOptions().dataEvolutionEnabled()) {
            compactDataEvolution(table);
            return;
        }
        AppendCompactCoordinator coordinator = new AppendCompactCoordinator(table, false);
        List<AppendCompactTask> tasks = coordinator.run();
        if (tasks.isEmpty()) {
            return;
        }
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite();
                BatchTableCommit c = wb.newCommit()) {
            BaseAppendFileStoreWrite write =
                    (BaseAppendFileStoreWrite) ((TableWriteImpl<?>) w).getWrite();
            List<CommitMessage> msgs = new ArrayList<>();
            for (AppendCompactTask task : tasks) {
                msgs.add(task.doCompact(table, write));
            }
            c.commit(msgs);
        }
    }

    /** A data-evolution table's compaction: Java's own coordinator and tasks, not blobs. */
    private static void compactDataEvolution(FileStoreTable table) throws Exception {
        List<DataEvolutionCompactTask> tasks =
                new DataEvolutionCompactCoordinator(table, false, false).plan();
        if (tasks.isEmpty()) {
            return;
        }
        BatchWriteBuilder wb = table.newBatchWriteBuilder();
        try (BatchTableCommit c = wb.newCommit()) {
            List<CommitMessage> msgs = new ArrayList<>();
            for (DataEvolutionCompactTask task : tasks) {
                msgs.add(task.doCompact(table, "paimon-oracle-compact"));
            }
            c.commit(msgs);
        }
    }

    private static boolean isConflict(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.contains("conflicts detected")) {
                return true;
            }
        }
        return false;
    }

    private static long latest(FileStoreTable t) {
        return t.snapshotManager().latestSnapshotId() == null
                ? 0
                : t.snapshotManager().latestSnapshotId();
    }

    private static void emit(PrintStream out, String action, FileStoreTable t) {
        out.println("{\"action\":\"" + action + "\",\"snapshot\":" + latest(t) + "}");
        out.flush();
    }
}
