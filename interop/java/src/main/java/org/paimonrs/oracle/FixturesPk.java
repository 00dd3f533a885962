package org.paimonrs.oracle;

import static org.paimonrs.oracle.Fx.L;
import static org.paimonrs.oracle.Fx.M;
import static org.paimonrs.oracle.Fx.row;
import static org.paimonrs.oracle.Fx.rowOf;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.index.SimpleHashBucketAssigner;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.RowKeyExtractor;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.List;

/** Primary-key tables: merge engines, changelog producers, deletion vectors, bucket modes. */
final class FixturesPk {

    private FixturesPk() {}

    static void reg(List<Object[]> all, String name, Fixtures.TableWriter w) {
        all.add(new Object[] {name, w});
    }

    /** (id INT, v STRING, n BIGINT, ts TIMESTAMP(3)), primary key id. */
    static Schema.Builder kvSchema() {
        return Fx.schema()
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .column("n", DataTypes.BIGINT())
                .column("ts", DataTypes.TIMESTAMP(3))
                .primaryKey("id");
    }

    static String ts(int i, int c) {
        return java.time.LocalDateTime.of(2024, 5, 1, 0, 0)
                .plusMinutes(i * 7L + c)
                .plusNanos((i % 1000) * 1_000_000L)
                .toString();
    }

    /** The four overlapping commits every kv table gets; returns after the {@code upTo}-th. */
    static void kvCommits(FileStoreTable t, int from, int upTo) throws Exception {
        List<List<GenericRow>> all = kvRows(t.rowType());
        for (int c = from; c <= upTo; c++) {
            Fx.commit(t, all.get(c - 1));
        }
    }

    /** The rows of the four kv commits. */
    static List<List<GenericRow>> kvRows(RowType rt) {
        List<List<GenericRow>> all = new ArrayList<>();
        for (int c = 1; c <= 4; c++) {
            List<GenericRow> rows = new ArrayList<>();
            switch (c) {
                case 1:
                    for (int i = 0; i < 30; i++) {
                        rows.add(row(rt, i, "c1-" + i, (long) i, ts(i, 1)));
                    }
                    break;
                case 2:
                    for (int i = 15; i < 45; i++) {
                        rows.add(row(rt, i, i % 9 == 0 ? null : "c2-" + i, i * 2L, ts(i, 2)));
                    }
                    break;
                case 3:
                    for (int i = 0; i < 5; i++) {
                        rows.add(rowOf(RowKind.DELETE, rt, i, "c1-" + i, (long) i, ts(i, 1)));
                    }
                    for (int i = 20; i < 25; i++) {
                        rows.add(rowOf(RowKind.UPDATE_BEFORE, rt, i, "c2-" + i, i * 2L, ts(i, 2)));
                        rows.add(rowOf(RowKind.UPDATE_AFTER, rt, i, "c3-" + i, i * 3L, ts(i, 3)));
                    }
                    for (int i = 45; i < 50; i++) {
                        rows.add(row(rt, i, "c3-" + i, i * 3L, ts(i, 3)));
                    }
                    break;
                case 4:
                    for (int i = 10; i < 20; i++) {
                        rows.add(row(rt, i, "c4-" + i, null, ts(i, 4)));
                    }
                    rows.add(rowOf(RowKind.DELETE, rt, 47, null, null, null));
                    rows.add(row(rt, 3, "c4-reinserted", 3L, ts(3, 4)));
                    break;
                default:
                    throw new IllegalArgumentException("no kv commit " + c);
            }
            all.add(rows);
        }
        return all;
    }

    static void register(List<Object[]> all) {
        reg(all, "pk.dedup_uncompacted", fx -> {
            FileStoreTable t = fx.create("pk", "dedup_uncompacted",
                    kvSchema().option("bucket", "2").option("write-only", "true").build());
            kvCommits(t, 1, 4);
        });
        reg(all, "pk.dedup_compacted", fx -> {
            FileStoreTable t = fx.create("pk", "dedup_compacted",
                    kvSchema().option("bucket", "2").option("write-only", "true").build());
            kvCommits(t, 1, 4);
            Fx.fullCompact(t);
        });
        reg(all, "pk.dedup_mixed_levels", fx -> {
            FileStoreTable t = fx.create("pk", "dedup_mixed_levels",
                    kvSchema().option("bucket", "2").option("write-only", "true").build());
            kvCommits(t, 1, 2);
            Fx.fullCompact(t);
            kvCommits(t, 3, 4);
        });
        for (String format : new String[] {"orc", "avro"}) {
            reg(all, "pk.dedup_" + format, fx -> {
                FileStoreTable t = fx.create("pk", "dedup_" + format, kvSchema()
                        .option("bucket", "2")
                        .option("write-only", "true")
                        .option("file.format", format)
                        .build());
                kvCommits(t, 1, 4);
            });
        }
        reg(all, "pk.partitioned", fx -> {
            FileStoreTable t = fx.create("pk", "partitioned", Fx.schema()
                    .column("dt", DataTypes.STRING().notNull())
                    .column("hr", DataTypes.INT().notNull())
                    .column("id", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .partitionKeys("dt", "hr")
                    .primaryKey("dt", "hr", "id")
                    .option("bucket", "2")
                    .option("write-only", "true")
                    .build());
            RowType rt = t.rowType();
            String[] dts = {"2024-01-01", "2024-01-02", ""};
            for (int c = 0; c < 3; c++) {
                List<GenericRow> rows = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    int id = (i + c * 10) % 40;
                    rows.add(row(rt, dts[id % 3], id % 2, id, "c" + c + "-" + id));
                }
                Fx.commit(t, rows);
            }
        });
        reg(all, "pk.partial_update", fx -> {
            FileStoreTable t = fx.create("pk", "partial_update", Fx.schema()
                    .column("k", DataTypes.INT().notNull())
                    .column("a", DataTypes.STRING())
                    .column("b", DataTypes.INT())
                    .column("g1", DataTypes.INT())
                    .column("c", DataTypes.STRING())
                    .column("d", DataTypes.DOUBLE())
                    .column("g2", DataTypes.INT())
                    .column("e", DataTypes.STRING())
                    .primaryKey("k")
                    .option("bucket", "1")
                    .option("write-only", "true")
                    .option("merge-engine", "partial-update")
                    .option("fields.g1.sequence-group", "a,b")
                    .option("fields.g2.sequence-group", "c,d")
                    .build());
            RowType rt = t.rowType();
            List<GenericRow> c1 = new ArrayList<>();
            List<GenericRow> c2 = new ArrayList<>();
            List<GenericRow> c3 = new ArrayList<>();
            for (int k = 0; k < 10; k++) {
                c1.add(row(rt, k, "a1-" + k, k, 1, null, null, null, "e1-" + k));
                if (k % 2 == 0) {
                    c2.add(row(rt, k, "a2-" + k, null, 2, "c2-" + k, k * 1.5, 1, null));
                } else {
                    c2.add(row(rt, k, "stale", -1, 0, "c2-" + k, k * 1.5, 1, "e2-" + k));
                }
                if (k < 5) {
                    c3.add(row(rt, k, null, null, null, "stale", null, 0, "e3-" + k));
                } else {
                    c3.add(row(rt, k, null, null, null, "c3-" + k, 9.5, 5, null));
                }
            }
            Fx.commit(t, c1);
            Fx.commit(t, c2);
            Fx.commit(t, c3);
        });
        reg(all, "pk.partial_update_ignore_delete", fx -> {
            FileStoreTable t = fx.create("pk", "partial_update_ignore_delete", Fx.schema()
                    .column("k", DataTypes.INT().notNull())
                    .column("a", DataTypes.STRING())
                    .column("b", DataTypes.INT())
                    .primaryKey("k")
                    .option("bucket", "1")
                    .option("write-only", "true")
                    .option("merge-engine", "partial-update")
                    .option("ignore-delete", "true")
                    .build());
            RowType rt = t.rowType();
            List<GenericRow> c1 = new ArrayList<>();
            List<GenericRow> c2 = new ArrayList<>();
            List<GenericRow> c3 = new ArrayList<>();
            for (int k = 0; k < 10; k++) {
                c1.add(row(rt, k, "a-" + k, null));
                c2.add(rowOf(k % 2 == 0 ? RowKind.DELETE : RowKind.UPDATE_BEFORE, rt, k, "a-" + k, null));
                c3.add(row(rt, k, null, k * 100));
            }
            Fx.commit(t, c1);
            Fx.commit(t, c2);
            Fx.commit(t, c3);
        });
        reg(all, "pk.aggregation", FixturesPk::aggregation);
        reg(all, "pk.first_row", fx -> {
            FileStoreTable t = fx.create("pk", "first_row", kvSchema()
                    .option("bucket", "2")
                    .option("merge-engine", "first-row")
                    .build());
            kvCommitsInsertOnly(t);
        });
        reg(all, "pk.sequence_field", fx -> {
            FileStoreTable t = fx.create("pk", "sequence_field", Fx.schema()
                    .column("k", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .column("seq", DataTypes.BIGINT())
                    .primaryKey("k")
                    .option("bucket", "1")
                    .option("write-only", "true")
                    .option("sequence.field", "seq")
                    .build());
            RowType rt = t.rowType();
            for (int c = 0; c < 3; c++) {
                List<GenericRow> rows = new ArrayList<>();
                for (int k = 0; k < 12; k++) {
                    // Commit 1 carries the highest sequence for even keys: later commits lose.
                    long seq = k % 2 == 0 ? (c == 0 ? 100 : 10 + c) : 10 + c;
                    rows.add(row(rt, k, "c" + c + "-" + k, seq));
                }
                Fx.commit(t, rows);
            }
        });
        reg(all, "pk.dynamic_bucket", fx -> {
            FileStoreTable t = fx.create("pk", "dynamic_bucket", kvSchema()
                    .option("bucket", "-1")
                    .option("dynamic-bucket.target-row-num", "8")
                    .build());
            // The batch API needs the caller to assign dynamic buckets; one assigner for all
            // commits keeps every key in the bucket it first landed in, as Flink's would.
            SimpleHashBucketAssigner assigner = new SimpleHashBucketAssigner(1, 0, 8, -1);
            RowKeyExtractor ex = t.createRowKeyExtractor();
            for (List<GenericRow> rows : kvRows(t.rowType())) {
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite w = wb.newWrite().withIOManager(Fx.ioManager());
                        BatchTableCommit c = wb.newCommit()) {
                    for (GenericRow r : rows) {
                        ex.setRecord(r);
                        w.write(r, assigner.assign(ex.partition(), ex.trimmedPrimaryKey().hashCode()));
                    }
                    c.commit(w.prepareCommit());
                }
            }
        });
        reg(all, "pk.cross_partition", fx -> {
            FileStoreTable t = fx.create("pk", "cross_partition", Fx.schema()
                    .column("id", DataTypes.INT().notNull())
                    .column("v", DataTypes.STRING())
                    .column("p", DataTypes.INT())
                    .primaryKey("id")
                    .partitionKeys("p")
                    .option("bucket", "-1")
                    .option("dynamic-bucket.target-row-num", "6")
                    .build());
            // What Flink's global index assigner does: a key that moves to another partition
            // is deleted from its old (partition, bucket) in the same commit.
            RowType rt = t.rowType();
            SimpleHashBucketAssigner assigner = new SimpleHashBucketAssigner(1, 0, 6, -1);
            RowKeyExtractor ex = t.createRowKeyExtractor();
            java.util.Map<Integer, int[]> where = new java.util.HashMap<>();
            for (int c = 0; c < 3; c++) {
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite w = wb.newWrite().withIOManager(Fx.ioManager());
                        BatchTableCommit commit = wb.newCommit()) {
                    for (int i = 0; i < 20; i++) {
                        int id = i + c * 5;
                        int p = (i + c) % 3;
                        int[] old = where.get(id);
                        if (old != null && old[0] != p) {
                            w.write(rowOf(RowKind.DELETE, rt, id, null, old[0]), old[1]);
                        }
                        GenericRow r = row(rt, id, "c" + c, p);
                        ex.setRecord(r);
                        int bucket = old != null && old[0] == p
                                ? old[1]
                                : assigner.assign(ex.partition(), ex.trimmedPrimaryKey().hashCode());
                        w.write(r, bucket);
                        where.put(id, new int[] {p, bucket});
                    }
                    commit.commit(w.prepareCommit());
                }
            }
        });
        reg(all, "pk.postpone_bucket", fx -> {
            FileStoreTable t = fx.create("pk", "postpone_bucket", kvSchema()
                    .option("bucket", "-2")
                    .build());
            kvCommits(t, 1, 4);
        });
        reg(all, "pk.dv32", fx -> {
            FileStoreTable t = fx.create("pk", "dv32", kvSchema()
                    .option("bucket", "2")
                    .option("deletion-vectors.enabled", "true")
                    .build());
            kvCommits(t, 1, 4);
        });
        reg(all, "pk.dv64", fx -> {
            FileStoreTable t = fx.create("pk", "dv64", kvSchema()
                    .option("bucket", "2")
                    .option("deletion-vectors.enabled", "true")
                    .option("deletion-vectors.bitmap64", "true")
                    .build());
            kvCommits(t, 1, 4);
        });
        for (String producer : new String[] {"input", "lookup", "full-compaction"}) {
            String name = "changelog_" + producer.replace('-', '_');
            reg(all, "pk." + name, fx -> {
                FileStoreTable t = fx.create("pk", name, kvSchema()
                        .option("bucket", "2")
                        .option("changelog-producer", producer)
                        .build());
                kvCommits(t, 1, 4);
                if (producer.equals("full-compaction")) {
                    Fx.fullCompact(t);
                }
            });
        }
        reg(all, "pk.aggregation_lookup", FixturesPk::aggregationLookup);
        reg(all, "pk.many_snapshots", FixturesPk::manySnapshots);
    }

    /** first-row rejects retractions unless told to ignore them: only inserts here. */
    private static void kvCommitsInsertOnly(FileStoreTable t) throws Exception {
        RowType rt = t.rowType();
        for (int c = 1; c <= 3; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = c * 8; i < c * 8 + 20; i++) {
                rows.add(row(rt, i, "c" + c + "-" + i, (long) c, ts(i, c)));
            }
            Fx.commit(t, rows);
        }
    }

    private static void aggregation(Fx fx) throws Exception {
        FileStoreTable t = fx.create("pk", "aggregation", Fx.schema()
                .column("k", DataTypes.INT().notNull())
                .column("f_sum", DataTypes.BIGINT())
                .column("f_product", DataTypes.DOUBLE())
                .column("f_max", DataTypes.INT())
                .column("f_min", DataTypes.DECIMAL(10, 2))
                .column("f_max_ts", DataTypes.TIMESTAMP(3))
                .column("f_min_date", DataTypes.DATE())
                .column("f_last_value", DataTypes.STRING())
                .column("f_last_non_null_value", DataTypes.STRING())
                .column("f_first_value", DataTypes.STRING())
                .column("f_first_non_null_value", DataTypes.STRING())
                .column("f_bool_and", DataTypes.BOOLEAN())
                .column("f_bool_or", DataTypes.BOOLEAN())
                .column("f_listagg", DataTypes.STRING())
                .column("f_collect", DataTypes.ARRAY(DataTypes.INT()))
                .column("f_collect_distinct", DataTypes.ARRAY(DataTypes.STRING()))
                .column("f_merge_map", DataTypes.MAP(DataTypes.STRING(), DataTypes.INT()))
                .column("f_sum_dec", DataTypes.DECIMAL(20, 4))
                .primaryKey("k")
                .option("bucket", "1")
                .option("write-only", "true")
                .option("merge-engine", "aggregation")
                .option("fields.f_sum.aggregate-function", "sum")
                .option("fields.f_product.aggregate-function", "product")
                .option("fields.f_max.aggregate-function", "max")
                .option("fields.f_min.aggregate-function", "min")
                .option("fields.f_max_ts.aggregate-function", "max")
                .option("fields.f_min_date.aggregate-function", "min")
                .option("fields.f_last_value.aggregate-function", "last_value")
                .option("fields.f_last_non_null_value.aggregate-function", "last_non_null_value")
                .option("fields.f_first_value.aggregate-function", "first_value")
                .option("fields.f_first_non_null_value.aggregate-function", "first_non_null_value")
                .option("fields.f_bool_and.aggregate-function", "bool_and")
                .option("fields.f_bool_or.aggregate-function", "bool_or")
                .option("fields.f_listagg.aggregate-function", "listagg")
                .option("fields.f_listagg.list-agg-delimiter", "|")
                .option("fields.f_collect.aggregate-function", "collect")
                .option("fields.f_collect_distinct.aggregate-function", "collect")
                .option("fields.f_collect_distinct.distinct", "true")
                .option("fields.f_merge_map.aggregate-function", "merge_map")
                .option("fields.f_sum_dec.aggregate-function", "sum")
                .build());
        RowType rt = t.rowType();
        for (int c = 0; c < 3; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int k = 0; k < 8; k++) {
                boolean nul = (k + c) % 4 == 3;
                rows.add(row(rt, k,
                        nul ? null : (long) (k * 10 + c),
                        nul ? null : 1.5 + c,
                        nul ? null : (k * 7 + c * 13) % 20,
                        nul ? null : String.format("%d.%02d", (k * 3 + c * 5) % 11, c * 7),
                        nul ? null : ts(k * 5 + (c * 11) % 7, c),
                        nul ? null : java.time.LocalDate.of(2024, 1, 1).plusDays((k + c * 3) % 5).toString(),
                        nul ? null : "last-" + c,
                        nul ? null : "lnn-" + c,
                        nul ? null : "first-" + c,
                        nul ? null : "fnn-" + c,
                        nul ? null : (k + c) % 3 != 0,
                        nul ? null : (k + c) % 5 == 0,
                        nul ? null : "s" + c,
                        nul ? null : L(c, k),
                        nul ? null : L("x" + (c % 2), "y"),
                        nul ? null : M("c" + c, c, "k", k * 10 + c),
                        nul ? null : String.format("%d.%04d", k + c, c * 125)));
            }
            Fx.commit(t, rows);
        }
    }

    /**
     * Aggregation with the lookup changelog producer: every commit's level-0 file is compacted
     * up to the level above the last one written, merged with the key's newest copy found in the
     * levels below, so a key's older aggregates stay in deeper levels. Java reads a key from its
     * level-0 records and its shallowest copy only (LookupMergeFunction); merging every level
     * would count the older aggregates twice.
     */
    private static void aggregationLookup(Fx fx) throws Exception {
        FileStoreTable t = fx.create("pk", "aggregation_lookup", Fx.schema()
                .column("k", DataTypes.INT().notNull())
                .column("f_sum", DataTypes.BIGINT())
                .column("f_max", DataTypes.INT())
                .column("f_listagg", DataTypes.STRING())
                .primaryKey("k")
                .option("bucket", "1")
                .option("merge-engine", "aggregation")
                .option("changelog-producer", "lookup")
                .option("fields.f_sum.aggregate-function", "sum")
                .option("fields.f_max.aggregate-function", "max")
                .option("fields.f_listagg.aggregate-function", "listagg")
                .build());
        RowType rt = t.rowType();
        for (int c = 1; c <= 4; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int k = c * 2; k < c * 2 + 8; k++) {
                rows.add(row(rt, k, (long) (c * 100 + k), (k * 7 + c * 3) % 10, "c" + c));
            }
            Fx.commit(t, rows);
        }
    }

    /** Twelve commits, tags, a branch with its own commits, then expiration down to four. */
    private static void manySnapshots(Fx fx) throws Exception {
        FileStoreTable t = fx.create("pk", "many_snapshots", Fx.schema()
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .column("round", DataTypes.INT())
                .primaryKey("id")
                .option("bucket", "1")
                .option("snapshot.num-retained.min", "1")
                .option("snapshot.num-retained.max", "1000")
                .build());
        RowType rt = t.rowType();
        for (int c = 1; c <= 12; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                int id = (c * 3 + i) % 20;
                rows.add(row(rt, id, "r" + c + "-" + id, c));
            }
            if (c % 4 == 0) {
                rows.add(rowOf(RowKind.DELETE, rt, c, null, null));
            }
            Fx.commit(t, rows);
            if (c == 3 || c == 6) {
                t.createTag("t" + c, c);
            }
        }
        t.createTag("t9", 9);
        t.createBranch("b1", "t6");
        FileStoreTable b = t.switchToBranch("b1");
        for (int c = 1; c <= 2; c++) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                rows.add(row(b.rowType(), 100 + c * 10 + i, "branch-" + c, -c));
            }
            rows.add(row(b.rowType(), 0, "branch-updated", -c));
            Fx.commit(b, rows);
        }
        Fx.expire(t, 4);
    }
}
