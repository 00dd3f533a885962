package org.paimonrs.oracle;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.types.DataTypes;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Random;

/**
 * {@code write-bench-tables OUT [--rows N] [--pk-rows N] [--small-rows N] [--only NAME]}: the
 * tables of the read benchmarks (issue 6), deterministic (seeded) apart from file names:
 *
 * <ul>
 *   <li>{@code append_big}: N rows (default 20,000,000), 10 columns (ints, doubles, strings, a
 *       boolean, a timestamp), 4 partitions, 20 commits of one zstd Parquet file per partition
 *       (80 files). {@code id} ascends with the write order, so each file covers one id range
 *       (for the selective-filter figure).
 *   <li>{@code pk_big}: 5 commits of N / 5 keys each (default 5,000,000 rows), commit c writing
 *       keys [c * 0.6 * N/5, c * 0.6 * N/5 + N/5), i.e. 3.4 * N/5 distinct keys; 4 buckets,
 *       deduplicate, write-only (never compacted), so every bucket holds 5 overlapping runs.
 *   <li>{@code append_orc}, {@code append_avro}: append_big's schema with --small-rows rows
 *       (default N / 4) as ORC (zstd) and Avro (zstd).
 * </ul>
 *
 * Generated on demand by {@code scripts/bench.sh}, never committed.
 */
final class BenchTables {

    private static final int PARTITIONS = 4;
    private static final int APPEND_COMMITS = 20;
    private static final int PK_COMMITS = 5;

    private BenchTables() {}

    static void write(Args a, PrintStream out) throws Exception {
        String root = a.positional(0);
        long rows = a.getLong("--rows", 20_000_000L);
        long pkRows = a.getLong("--pk-rows", 5_000_000L);
        long small = a.getLong("--small-rows", rows / 4);
        String only = a.get("--only");
        Files.createDirectories(Paths.get(root));
        if (only == null || only.equals("append_big")) {
            append(root + "/append_big", "parquet", rows, out);
        }
        if (only == null || only.equals("pk_big")) {
            pk(root + "/pk_big", pkRows, out);
        }
        if (only == null || only.equals("append_orc")) {
            append(root + "/append_orc", "orc", small, out);
        }
        if (only == null || only.equals("append_avro")) {
            append(root + "/append_avro", "avro", small, out);
        }
    }

    private static FileStoreTable create(String path, Schema schema) throws Exception {
        String abs = Paths.get(path).toAbsolutePath().normalize().toString();
        SchemaManager sm = new SchemaManager(LocalFileIO.create(), new Path(abs));
        if (sm.latest().isPresent()) {
            throw new IllegalArgumentException(path + " already holds a table");
        }
        sm.createTable(schema);
        return Commands.open(path);
    }

    private static Schema.Builder appendSchema() {
        return Schema.newBuilder()
                .column("id", DataTypes.BIGINT())
                .column("p", DataTypes.INT())
                .column("i1", DataTypes.INT())
                .column("i2", DataTypes.INT())
                .column("d1", DataTypes.DOUBLE())
                .column("d2", DataTypes.DOUBLE())
                .column("s1", DataTypes.STRING())
                .column("s2", DataTypes.STRING())
                .column("flag", DataTypes.BOOLEAN())
                .column("ts", DataTypes.TIMESTAMP(3));
    }

    private static void append(String path, String format, long rows, PrintStream out)
            throws Exception {
        FileStoreTable t = create(path, appendSchema()
                .partitionKeys("p")
                .option("bucket", "-1")
                .option("file.format", format)
                .option("file.compression", "zstd")
                .option("target-file-size", "1 gb")
                .build());
        Random rnd = new Random(42);
        long perFile = Math.max(1, rows / ((long) APPEND_COMMITS * PARTITIONS));
        long id = 0;
        for (int c = 0; c < APPEND_COMMITS; c++) {
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite().withIOManager(Fx.ioManager());
                    BatchTableCommit cm = wb.newCommit()) {
                for (int p = 0; p < PARTITIONS; p++) {
                    for (long i = 0; i < perFile; i++) {
                        w.write(appendRow(id++, p, rnd));
                    }
                }
                cm.commit(w.prepareCommit());
            }
            System.err.printf("%s: %d/%d commits%n", path, c + 1, APPEND_COMMITS);
        }
        out.println("{\"table\":" + RowJson.quote(path) + ",\"rows\":" + id + "}");
    }

    private static GenericRow appendRow(long id, int p, Random rnd) {
        GenericRow r = new GenericRow(10);
        r.setField(0, id);
        r.setField(1, p);
        r.setField(2, rnd.nextInt(1000));
        r.setField(3, rnd.nextInt());
        r.setField(4, rnd.nextDouble());
        r.setField(5, rnd.nextInt(10) == 0 ? null : (double) rnd.nextInt(100_000) / 100);
        r.setField(6, BinaryString.fromString("s" + rnd.nextInt(10_000)));
        r.setField(7, BinaryString.fromString(Long.toHexString(rnd.nextLong())));
        r.setField(8, rnd.nextBoolean());
        r.setField(9, Timestamp.fromEpochMillis(1_700_000_000_000L + id * 10));
        return r;
    }

    private static void pk(String path, long rows, PrintStream out) throws Exception {
        FileStoreTable t = create(path, Schema.newBuilder()
                .column("k", DataTypes.BIGINT().notNull())
                .column("v1", DataTypes.INT())
                .column("v2", DataTypes.BIGINT())
                .column("d", DataTypes.DOUBLE())
                .column("s", DataTypes.STRING())
                .column("ts", DataTypes.TIMESTAMP(3))
                .primaryKey("k")
                .option("bucket", "4")
                .option("merge-engine", "deduplicate")
                .option("write-only", "true")
                .option("file.format", "parquet")
                .option("file.compression", "zstd")
                .option("target-file-size", "1 gb")
                .build());
        Random rnd = new Random(7);
        long perCommit = Math.max(1, rows / PK_COMMITS);
        long step = perCommit * 3 / 5;
        for (int c = 0; c < PK_COMMITS; c++) {
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite().withIOManager(Fx.ioManager());
                    BatchTableCommit cm = wb.newCommit()) {
                long first = c * step;
                for (long k = first; k < first + perCommit; k++) {
                    GenericRow r = new GenericRow(6);
                    r.setField(0, k);
                    r.setField(1, c);
                    r.setField(2, rnd.nextLong());
                    r.setField(3, rnd.nextDouble());
                    r.setField(4, BinaryString.fromString("v" + rnd.nextInt(1_000_000)));
                    r.setField(5, Timestamp.fromEpochMillis(1_700_000_000_000L + k));
                    w.write(r);
                }
                cm.commit(w.prepareCommit());
            }
            System.err.printf("%s: %d/%d commits%n", path, c + 1, PK_COMMITS);
        }
        out.println("{\"table\":" + RowJson.quote(path) + ",\"rows\":" + perCommit * PK_COMMITS
                + ",\"distinctKeys\":" + (step * (PK_COMMITS - 1) + perCommit) + "}");
    }
}
