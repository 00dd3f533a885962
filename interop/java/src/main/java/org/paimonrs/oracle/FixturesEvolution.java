package org.paimonrs.oracle;

import static org.paimonrs.oracle.Fx.L;
import static org.paimonrs.oracle.Fx.row;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Schema evolution: column add / drop / rename / reorder, the type-change matrix, nesting. */
final class FixturesEvolution {

    private FixturesEvolution() {}

    static void reg(List<Object[]> all, String name, Fixtures.TableWriter w) {
        all.add(new Object[] {name, w});
    }

    static void register(List<Object[]> all) {
        reg(all, "evolution.columns", FixturesEvolution::columns);
        reg(all, "evolution.pk_columns", FixturesEvolution::pkColumns);
        reg(all, "evolution.type_matrix", FixturesEvolution::typeMatrix);
        reg(all, "evolution.nested", FixturesEvolution::nested);
    }

    /** Append table: a row batch after every change; "c" is dropped then re-added (new id). */
    private static void columns(Fx fx) throws Exception {
        FileStoreTable t = fx.create("evolution", "columns", Fx.schema()
                .column("a", DataTypes.INT())
                .column("b", DataTypes.STRING())
                .column("c", DataTypes.DOUBLE())
                .column("d", DataTypes.BIGINT())
                .build());
        int[] next = {0};
        batch(t, next);
        t = fx.alter(t, SchemaChange.addColumn("e", DataTypes.STRING()));
        batch(t, next);
        t = fx.alter(t, SchemaChange.dropColumn("c"));
        batch(t, next);
        t = fx.alter(t, SchemaChange.renameColumn("b", "b2"));
        batch(t, next);
        t = fx.alter(t, SchemaChange.updateColumnPosition(SchemaChange.Move.first("d")));
        batch(t, next);
        t = fx.alter(t, SchemaChange.addColumn("c", DataTypes.DOUBLE(), null,
                SchemaChange.Move.after("c", "a")));
        batch(t, next);
        t = fx.alter(t, SchemaChange.updateColumnPosition(SchemaChange.Move.last("a")));
        batch(t, next);
    }

    /** Five rows of whatever the current schema is, values derived from the column name. */
    private static void batch(FileStoreTable t, int[] next) throws Exception {
        RowType rt = t.rowType();
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = next[0]++;
            Object[] v = new Object[rt.getFieldCount()];
            for (int k = 0; k < v.length; k++) {
                v[k] = TypeValues.forField(rt.getFields().get(k).name(), rt.getTypeAt(k), id);
            }
            rows.add(row(rt, v));
        }
        Fx.commit(t, rows);
    }

    /** PK table, no compaction: files of four schemas merge at read time. */
    private static void pkColumns(Fx fx) throws Exception {
        FileStoreTable t = fx.create("evolution", "pk_columns", Fx.schema()
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .column("x", DataTypes.INT())
                .primaryKey("id")
                .option("bucket", "1")
                .option("write-only", "true")
                .build());
        pkBatch(t, 0, 10, 1);
        t = fx.alter(t, SchemaChange.addColumn("y", DataTypes.STRING(), null,
                SchemaChange.Move.after("y", "id")));
        pkBatch(t, 5, 10, 2);
        t = fx.alter(t, SchemaChange.renameColumn("x", "x2"));
        pkBatch(t, 8, 6, 3);
        t = fx.alter(t, SchemaChange.updateColumnType("x2", DataTypes.BIGINT()));
        pkBatch(t, 12, 6, 4);
        t = fx.alter(t, SchemaChange.dropColumn("v"));
        pkBatch(t, 0, 3, 5);
    }

    private static void pkBatch(FileStoreTable t, int from, int n, int round) throws Exception {
        RowType rt = t.rowType();
        List<GenericRow> rows = new ArrayList<>();
        for (int id = from; id < from + n; id++) {
            Object[] v = new Object[rt.getFieldCount()];
            for (int k = 0; k < v.length; k++) {
                String name = rt.getFields().get(k).name();
                if (name.equals("id")) {
                    v[k] = id;
                } else if (rt.getTypeAt(k).getTypeRoot().name().equals("VARCHAR")) {
                    v[k] = name + "-r" + round + "-" + id;
                } else {
                    v[k] = (long) round * 1000 + id;
                }
            }
            rows.add(row(rt, v));
        }
        Fx.commit(t, rows);
    }

    // ---------------------------------------------------------------- type matrix

    /** One column per (source, target) pair: four rows before the change, four after. */
    private static void typeMatrix(Fx fx) throws Exception {
        Set<String> exclude = new LinkedHashSet<>();
        for (int attempt = 0; attempt < 3; attempt++) {
            List<String> refused = new ArrayList<>();
            FileStoreTable t = writeMatrix(fx, exclude, refused);
            Set<String> unreadable = unreadableColumns(t);
            if (unreadable.isEmpty()) {
                for (String r : refused) {
                    fx.refused.add(r);
                }
                for (String e : exclude) {
                    fx.skip("evolution.type_matrix " + e, "Java 1.4.2 cannot read the old file after the change");
                }
                return;
            }
            exclude.addAll(unreadable);
            fx.catalog.dropTable(Identifier.create("evolution", "type_matrix"), false);
        }
        throw new IllegalStateException("type_matrix still unreadable: " + exclude);
    }

    static Map<String, DataType[]> matrixPairs() {
        Map<String, DataType> base = new LinkedHashMap<>();
        base.put("tinyint", DataTypes.TINYINT());
        base.put("smallint", DataTypes.SMALLINT());
        base.put("int", DataTypes.INT());
        base.put("bigint", DataTypes.BIGINT());
        base.put("float", DataTypes.FLOAT());
        base.put("double", DataTypes.DOUBLE());
        base.put("bool", DataTypes.BOOLEAN());
        base.put("string", DataTypes.STRING());
        base.put("binary", DataTypes.BYTES());
        base.put("date", DataTypes.DATE());
        base.put("timestamp", DataTypes.TIMESTAMP(6));
        base.put("decimal", DataTypes.DECIMAL(10, 2));
        Map<String, DataType[]> pairs = new LinkedHashMap<>();
        for (Map.Entry<String, DataType> s : base.entrySet()) {
            for (Map.Entry<String, DataType> d : base.entrySet()) {
                if (!s.getKey().equals(d.getKey())) {
                    pairs.put("c_" + s.getKey() + "_to_" + d.getKey(),
                            new DataType[] {s.getValue(), d.getValue()});
                }
            }
        }
        pairs.put("c_dec_10_2_to_dec_12_4", new DataType[] {DataTypes.DECIMAL(10, 2), DataTypes.DECIMAL(12, 4)});
        pairs.put("c_dec_10_4_to_dec_10_2", new DataType[] {DataTypes.DECIMAL(10, 4), DataTypes.DECIMAL(10, 2)});
        pairs.put("c_dec_10_2_to_dec_5_1", new DataType[] {DataTypes.DECIMAL(10, 2), DataTypes.DECIMAL(5, 1)});
        pairs.put("c_ts3_to_ts6", new DataType[] {DataTypes.TIMESTAMP(3), DataTypes.TIMESTAMP(6)});
        pairs.put("c_ts6_to_ts3", new DataType[] {DataTypes.TIMESTAMP(6), DataTypes.TIMESTAMP(3)});
        pairs.put("c_ts9_to_ts6", new DataType[] {DataTypes.TIMESTAMP(9), DataTypes.TIMESTAMP(6)});
        pairs.put("c_ts6_to_ltz6", new DataType[] {DataTypes.TIMESTAMP(6), DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6)});
        pairs.put("c_ltz6_to_ts6", new DataType[] {DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6), DataTypes.TIMESTAMP(6)});
        pairs.put("c_date_to_ts3", new DataType[] {DataTypes.DATE(), DataTypes.TIMESTAMP(3)});
        pairs.put("c_char5_to_varchar10", new DataType[] {DataTypes.CHAR(5), DataTypes.VARCHAR(10)});
        pairs.put("c_varchar10_to_char3", new DataType[] {DataTypes.VARCHAR(10), DataTypes.CHAR(3)});
        pairs.put("c_varchar10_to_string", new DataType[] {DataTypes.VARCHAR(10), DataTypes.STRING()});
        pairs.put("c_binary4_to_varbinary8", new DataType[] {DataTypes.BINARY(4), DataTypes.VARBINARY(8)});
        pairs.put("c_time_to_string", new DataType[] {DataTypes.TIME(3), DataTypes.STRING()});
        pairs.put("c_int_not_null_to_nullable_bigint", new DataType[] {DataTypes.INT().notNull(), DataTypes.BIGINT()});
        return pairs;
    }

    private static FileStoreTable writeMatrix(Fx fx, Set<String> exclude, List<String> refused)
            throws Exception {
        Map<String, DataType[]> pairs = matrixPairs();
        Schema.Builder b = Fx.schema().column("id", DataTypes.INT());
        for (Map.Entry<String, DataType[]> p : pairs.entrySet()) {
            if (!exclude.contains(p.getKey())) {
                b.column(p.getKey(), p.getValue()[0]);
            }
        }
        FileStoreTable t = fx.create("evolution", "type_matrix", b.build());
        matrixRows(t, 0, pairs, true);
        // All changes in one alterTable (one schema file); a refused change is reported by
        // name, dropped from the batch, and the rest retried.
        List<String> pending = new ArrayList<>();
        for (String c : pairs.keySet()) {
            if (!exclude.contains(c)) {
                pending.add(c);
            }
        }
        while (!pending.isEmpty()) {
            List<SchemaChange> changes = new ArrayList<>();
            for (String c : pending) {
                changes.add(SchemaChange.updateColumnType(c, pairs.get(c)[1]));
            }
            try {
                t = fx.alter(t, changes.toArray(new SchemaChange[0]));
                break;
            } catch (Exception e) {
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                String msg = String.valueOf(root.getMessage());
                String culprit = null;
                for (String c : pending) {
                    if (msg.contains(c + "[")) {
                        culprit = c;
                        break;
                    }
                }
                if (culprit == null) {
                    throw e;
                }
                pending.remove(culprit);
                refused.add(culprit + ": " + msg);
            }
        }
        matrixRows(t, 4, pairs, false);
        return t;
    }

    /** Before the change: values chosen so that the cast to the target is meaningful. */
    private static void matrixRows(FileStoreTable t, int from, Map<String, DataType[]> pairs,
            boolean before) throws Exception {
        RowType rt = t.rowType();
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Object[] v = new Object[rt.getFieldCount()];
            v[0] = from + i;
            for (int k = 1; k < v.length; k++) {
                DataField f = rt.getFields().get(k);
                DataType target = pairs.get(f.name())[1];
                v[k] = before
                        ? TypeValues.sourceValue(f.type(), target, i)
                        : TypeValues.sourceValue(f.type(), null, i);
            }
            rows.add(row(rt, v));
        }
        Fx.commit(t, rows);
    }

    /** Columns whose projection-only read throws. */
    static Set<String> unreadableColumns(FileStoreTable t) {
        Set<String> bad = new LinkedHashSet<>();
        RowType rt = t.rowType();
        for (DataField f : rt.getFields()) {
            try {
                ReadBuilder rb = t.newReadBuilder().withReadType(new RowType(List.of(f)));
                try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan())) {
                    RowType one = new RowType(List.of(f));
                    r.forEachRemaining(row -> RowJson.encode(row, one));
                }
            } catch (Throwable e) {
                System.err.println("unreadable " + f.name() + ": " + e);
                bad.add(f.name());
            }
        }
        return bad;
    }

    // ---------------------------------------------------------------- nested

    private static void nested(Fx fx) throws Exception {
        FileStoreTable t = fx.create("evolution", "nested", Fx.schema()
                .column("id", DataTypes.INT())
                .column("r", DataTypes.ROW(
                        DataTypes.FIELD(10, "x", DataTypes.INT()),
                        DataTypes.FIELD(11, "y", DataTypes.STRING())))
                .column("tags", DataTypes.ARRAY(DataTypes.INT()))
                .build());
        RowType rt = t.rowType();
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            rows.add(row(rt, i, i == 3 ? null : L(i, "y" + i), L(i, i + 1)));
        }
        Fx.commit(t, rows);
        t = fx.alter(t, SchemaChange.addColumn(new String[] {"r", "z"}, DataTypes.DOUBLE(), null, null));
        rt = t.rowType();
        rows.clear();
        for (int i = 4; i < 8; i++) {
            rows.add(row(rt, i, L(i, "y" + i, i * 0.5), L(i)));
        }
        Fx.commit(t, rows);
        t = fx.alter(t, SchemaChange.renameColumn(new String[] {"r", "y"}, "y2"));
        t = fx.alter(t, SchemaChange.updateColumnType(new String[] {"r", "x"}, DataTypes.BIGINT(), false));
        t = fx.alter(t, SchemaChange.updateColumnType(new String[] {"tags", "element"}, DataTypes.BIGINT(), false));
        rt = t.rowType();
        rows.clear();
        for (int i = 8; i < 12; i++) {
            rows.add(row(rt, i, L(i * 1000000000L, "y2-" + i, null), L((long) i << 33)));
        }
        Fx.commit(t, rows);
        t = fx.alter(t, SchemaChange.dropColumn(new String[] {"r", "z"}));
        rt = t.rowType();
        rows.clear();
        rows.add(row(rt, 12, L(12L, "last"), null));
        Fx.commit(t, rows);
    }
}
