package org.paimonrs.oracle;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.io.PrintStream;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code write-planning-table OUT_TABLE --files N --commits C [--format F] [--no-manifest-merge]
 * [--option k=v]...}: an append table
 * partitioned by {@code p INT} where each of the C commits writes one single-row file into each
 * of ceil(N / C) partitions, so the table ends with about N data files. For the planning
 * benchmark; generated on demand, never committed. {@code --option} adds table options (the
 * interop script writes a small one with {@code manifest.format=parquet}). {@code
 * --no-manifest-merge} holds off Java's manifest merging ({@code manifest.merge-min-count} and
 * {@code manifest.full-compaction-threshold-size} out of reach), so the table ends with one
 * small manifest per commit, the shape streaming writers and other clients leave until a full
 * merge.
 */
final class PlanningTable {

    private PlanningTable() {}

    static void write(Args a, PrintStream out) throws Exception {
        String path = a.positional(0);
        long files = a.getLong("--files", 100_000);
        long commits = a.getLong("--commits", 1_000);
        int perCommit = (int) ((files + commits - 1) / commits);
        String abs = Paths.get(path).toAbsolutePath().normalize().toString();
        SchemaManager sm = new SchemaManager(LocalFileIO.create(), new Path(abs));
        if (sm.latest().isPresent()) {
            throw new IllegalArgumentException(path + " already holds a table");
        }
        Schema.Builder schema = Schema.newBuilder();
        if (a.has("--no-manifest-merge")) {
            schema.option("manifest.merge-min-count", Integer.toString(Integer.MAX_VALUE));
            schema.option("manifest.full-compaction-threshold-size", "1024tb");
        }
        for (String kv : a.getAll("--option")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--option wants k=v, got " + kv);
            }
            schema.option(kv.substring(0, eq), kv.substring(eq + 1));
        }
        sm.createTable(schema
                .column("p", DataTypes.INT())
                .column("id", DataTypes.BIGINT())
                .column("v", DataTypes.STRING())
                .partitionKeys("p")
                .option("bucket", "-1")
                .option("file.format", a.get("--format") == null ? "parquet" : a.get("--format"))
                .option("snapshot.num-retained.max", Long.toString(commits + 10))
                .option("snapshot.num-retained.min", Long.toString(commits + 10))
                .build());
        FileStoreTable table = Commands.open(path);
        RowType rt = table.rowType();
        long id = 0;
        for (long c = 0; c < commits; c++) {
            List<GenericRow> rows = new ArrayList<>(perCommit);
            for (int p = 0; p < perCommit; p++) {
                rows.add(Fx.row(rt, p, id, "v" + id));
                id++;
            }
            Fx.commit(table, rows);
            if ((c + 1) % 50 == 0) {
                System.err.printf("%d/%d commits%n", c + 1, commits);
            }
        }
        out.println("{\"table\":" + RowJson.quote(abs) + ",\"commits\":" + commits
                + ",\"filesPerCommit\":" + perCommit + "}");
    }
}
