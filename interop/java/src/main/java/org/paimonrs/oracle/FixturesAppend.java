package org.paimonrs.oracle;

import static org.paimonrs.oracle.Fx.row;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/** Append tables: layouts, formats, compressions, types, file indexes, row tracking. */
final class FixturesAppend {

    private FixturesAppend() {}

    static void reg(List<Object[]> all, String name, Fixtures.TableWriter w) {
        all.add(new Object[] {name, w});
    }

    static void register(List<Object[]> all) {
        reg(all, "append.unaware", fx -> {
            FileStoreTable t = fx.create("append", "unaware",
                    Fixtures.basicSchema().option("bucket", "-1").build());
            for (int c = 0; c < 3; c++) {
                Fx.commit(t, Fixtures.basicRows(t.rowType(), c * 30, 30));
            }
        });
        reg(all, "append.fixed_bucket", fx -> {
            FileStoreTable t = fx.create("append", "fixed_bucket",
                    Fixtures.basicSchema().option("bucket", "3").option("bucket-key", "id").build());
            for (int c = 0; c < 3; c++) {
                Fx.commit(t, Fixtures.basicRows(t.rowType(), c * 20, 20));
            }
            Fx.fullCompact(t);
        });
        reg(all, "append.part_date", fx -> {
            FileStoreTable t = fx.create("append", "part_date", Fx.schema()
                    .column("id", DataTypes.INT())
                    .column("v", DataTypes.STRING())
                    .column("dt", DataTypes.DATE())
                    .partitionKeys("dt")
                    .build());
            String[] dts = {"2024-01-01", "2024-02-29", null, "1970-01-01", "1969-12-31"};
            for (int c = 0; c < 2; c++) {
                List<GenericRow> rows = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    int id = c * 20 + i;
                    rows.add(row(t.rowType(), id, "v" + id, dts[id % dts.length]));
                }
                Fx.commit(t, rows);
            }
        });
        reg(all, "append.part_multi", fx -> {
            FileStoreTable t = fx.create("append", "part_multi", Fx.schema()
                    .column("id", DataTypes.INT())
                    .column("v", DataTypes.STRING())
                    .column("region", DataTypes.STRING())
                    .column("yr", DataTypes.INT())
                    .column("dt", DataTypes.DATE())
                    .partitionKeys("region", "yr", "dt")
                    .build());
            String[] regions = {"eu", "us", "", null, "a/b=c%d", "sp ace", "日本"};
            Integer[] yrs = {2023, 2024, null};
            String[] dts = {"2024-03-01", null, "2000-01-01"};
            for (int c = 0; c < 2; c++) {
                List<GenericRow> rows = new ArrayList<>();
                for (int i = 0; i < 21; i++) {
                    int id = c * 21 + i;
                    rows.add(row(t.rowType(), id, "v" + id, regions[id % regions.length],
                            yrs[id % yrs.length], dts[(id / 3) % dts.length]));
                }
                Fx.commit(t, rows);
            }
        });
        String[][] formats = {
            {"parquet", "zstd"}, {"parquet", "snappy"}, {"parquet", "gzip"}, {"parquet", "lz4"},
            {"parquet", "none"}, {"orc", "zstd"}, {"orc", "snappy"}, {"orc", "lz4"},
            {"orc", "zlib"}, {"orc", "none"}, {"avro", "zstd"}, {"avro", "snappy"},
            {"avro", "deflate"}, {"avro", "null"},
        };
        for (String[] f : formats) {
            String name = "fmt_" + f[0] + "_" + f[1];
            reg(all, "append." + name, fx -> {
                FileStoreTable t = fx.create("append", name, Fixtures.basicSchema()
                        .option("file.format", f[0])
                        .option("file.compression", f[1])
                        .build());
                Fx.commit(t, Fixtures.basicRows(t.rowType(), 0, 25));
                Fx.commit(t, Fixtures.basicRows(t.rowType(), 25, 25));
            });
        }
        reg(all, "append.format_change", fx -> {
            FileStoreTable t = fx.create("append", "format_change",
                    Fixtures.basicSchema().option("file.format", "parquet").build());
            Fx.commit(t, Fixtures.basicRows(t.rowType(), 0, 20));
            t = fx.alter(t, SchemaChange.setOption("file.format", "orc"));
            Fx.commit(t, Fixtures.basicRows(t.rowType(), 20, 20));
            t = fx.alter(t, SchemaChange.setOption("file.format", "avro"));
            Fx.commit(t, Fixtures.basicRows(t.rowType(), 40, 20));
        });
        for (String format : new String[] {"parquet", "orc", "avro"}) {
            reg(all, "append.all_types_" + format, fx -> AllTypes.write(fx, format));
        }
        reg(all, "append.file_index_embedded", fx -> fileIndex(fx, "file_index_embedded", "1 mb"));
        reg(all, "append.file_index_sidecar", fx -> fileIndex(fx, "file_index_sidecar", "1 b"));
        reg(all, "append.row_tracking", fx -> {
            FileStoreTable t = fx.create("append", "row_tracking",
                    Fixtures.basicSchema().option("row-tracking.enabled", "true").build());
            Fx.commit(t, Fixtures.basicRows(t.rowType(), 0, 15));
            Fx.commit(t, Fixtures.basicRows(t.rowType(), 15, 15));
        });
        reg(all, "append.data_evolution", fx -> dataEvolution(fx));
        reg(all, "append.blob", fx -> {
            FileStoreTable t = fx.create("append", "blob", Fx.schema()
                    .column("id", DataTypes.INT())
                    .column("name", DataTypes.STRING())
                    .column("doc", DataTypes.BLOB())
                    .option("row-tracking.enabled", "true")
                    .option("data-evolution.enabled", "true")
                    .build());
            List<GenericRow> rows = new ArrayList<>();
            Random rnd = new Random(42);
            for (int i = 0; i < 12; i++) {
                byte[] b = new byte[i * 37];
                rnd.nextBytes(b);
                rows.add(row(t.rowType(), i, "doc-" + i, i == 5 ? null : b));
            }
            Fx.commit(t, rows);
        });
    }

    private static void fileIndex(Fx fx, String name, String threshold) throws Exception {
        FileStoreTable t = fx.create("append", name, Fx.schema()
                .column("id", DataTypes.INT())
                .column("name", DataTypes.STRING())
                .column("category", DataTypes.STRING())
                .column("score", DataTypes.BIGINT())
                .option("file-index.bloom-filter.columns", "id,name")
                .option("file-index.bloom-filter.id.items", "100")
                .option("file-index.bloom-filter.name.items", "100")
                .option("file-index.bitmap.columns", "category")
                .option("file-index.in-manifest-threshold", threshold)
                .build());
        String[] cats = {"red", "green", "blue", null};
        for (int c = 0; c < 3; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                int id = c * 1000 + i;
                rows.add(row(t.rowType(), id, "n" + id, cats[(i + c) % cats.length], (long) id * 7));
            }
            Fx.commit(t, rows);
        }
    }

    /**
     * Row tracking + data evolution: two full-row commits, then two commits that rewrite a
     * column group for existing row ids (files written with a projected write type).
     */
    private static void dataEvolution(Fx fx) throws Exception {
        FileStoreTable t = fx.create("append", "data_evolution", Fx.schema()
                .column("id", DataTypes.INT())
                .column("a", DataTypes.STRING())
                .column("b", DataTypes.INT())
                .column("c", DataTypes.DOUBLE())
                .option("row-tracking.enabled", "true")
                .option("data-evolution.enabled", "true")
                .build());
        RowType rt = t.rowType();
        List<GenericRow> first = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            first.add(row(rt, i, "a" + i, i * 10, i * 0.5));
        }
        Fx.commit(t, first);
        List<GenericRow> second = new ArrayList<>();
        for (int i = 20; i < 30; i++) {
            second.add(row(rt, i, "a" + i, i * 10, i * 0.5));
        }
        Fx.commit(t, second);
        // Column group (b, c) rewritten for row ids 0..19.
        RowType bc = rt.project("b", "c");
        List<GenericRow> upd = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            upd.add(row(bc, i % 3 == 0 ? null : -i, i * -1.25));
        }
        commitColumnGroup(t, bc, upd, 0L);
        // Column a rewritten for row ids 20..29.
        RowType a = rt.project("a");
        List<GenericRow> upd2 = new ArrayList<>();
        for (int i = 20; i < 30; i++) {
            upd2.add(row(a, "A" + i));
        }
        commitColumnGroup(t, a, upd2, 20L);
    }

    static void commitColumnGroup(FileStoreTable t, RowType writeType, List<GenericRow> rows,
            long firstRowId) throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite().withWriteType(writeType).withIOManager(Fx.ioManager());
                BatchTableCommit c = wb.newCommit()) {
            for (GenericRow r : rows) {
                w.write(r);
            }
            List<CommitMessage> msgs = w.prepareCommit();
            for (CommitMessage m : msgs) {
                List<DataFileMeta> files = ((CommitMessageImpl) m).newFilesIncrement().newFiles();
                List<DataFileMeta> assigned = files.stream()
                        .map(f -> f.assignFirstRowId(firstRowId))
                        .collect(Collectors.toList());
                files.clear();
                files.addAll(assigned);
            }
            c.commit(msgs);
        }
    }
}
