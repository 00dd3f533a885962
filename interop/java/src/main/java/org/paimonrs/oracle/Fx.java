package org.paimonrs.oracle;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.BlobData;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.manifest.BucketEntry;
import org.apache.paimon.table.PostponeUtils;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Helpers for writing reference tables through the catalog and the batch write API. */
final class Fx implements AutoCloseable {

    final Catalog catalog;
    /** One line per skipped feature: "db.table: reason". Printed at the end of write-fixtures. */
    final List<String> skipped = new ArrayList<>();
    /** Type changes alterTable refused in evolution.type_matrix: "column: message". */
    final List<String> refused = new ArrayList<>();

    Fx(String warehouse) {
        String abs = java.nio.file.Paths.get(warehouse).toAbsolutePath().normalize().toString();
        this.catalog = CatalogFactory.createCatalog(CatalogContext.create(new Path(abs)));
    }

    @Override
    public void close() throws Exception {
        catalog.close();
    }

    FileStoreTable create(String db, String name, Schema schema) throws Exception {
        catalog.createDatabase(db, true);
        Identifier id = Identifier.create(db, name);
        catalog.createTable(id, schema, false);
        return table(db, name);
    }

    FileStoreTable table(String db, String name) throws Exception {
        return (FileStoreTable) catalog.getTable(Identifier.create(db, name));
    }

    FileStoreTable alter(FileStoreTable t, SchemaChange... changes) throws Exception {
        Identifier id = Identifier.fromString(t.fullName());
        catalog.alterTable(id, List.of(changes), false);
        return (FileStoreTable) catalog.getTable(id);
    }

    static Schema.Builder schema() {
        return Schema.newBuilder();
    }

    // ---------------------------------------------------------------- rows

    /** A row of the table's type, converting plain Java values (see {@link #conv}). */
    static GenericRow row(RowType type, Object... values) {
        return rowOf(RowKind.INSERT, type, values);
    }

    static GenericRow rowOf(RowKind kind, RowType type, Object... values) {
        if (values.length != type.getFieldCount()) {
            throw new IllegalArgumentException(
                    "row has " + values.length + " values, type has " + type.getFieldCount());
        }
        GenericRow r = new GenericRow(kind, values.length);
        for (int i = 0; i < values.length; i++) {
            r.setField(i, conv(type.getTypeAt(i), values[i]));
        }
        return r;
    }

    /**
     * Java value to Paimon's internal form: numbers, String for text / DECIMAL / DATE
     * ("YYYY-MM-DD") / TIME ("HH:MM:SS[.fff]") / TIMESTAMP ("YYYY-MM-DDTHH:MM:SS[.f]") /
     * TIMESTAMP_LTZ (ISO instant with Z); byte[] or String (UTF-8) for binary; List for
     * ARRAY and ROW; Map (iteration order kept) for MAP.
     */
    static Object conv(DataType type, Object v) {
        if (v == null) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return v;
            case TINYINT:
                return ((Number) v).byteValue();
            case SMALLINT:
                return ((Number) v).shortValue();
            case INTEGER:
                return ((Number) v).intValue();
            case BIGINT:
                return ((Number) v).longValue();
            case FLOAT:
                return ((Number) v).floatValue();
            case DOUBLE:
                return ((Number) v).doubleValue();
            case DECIMAL:
                {
                    DecimalType dt = (DecimalType) type;
                    BigDecimal bd = v instanceof BigDecimal ? (BigDecimal) v : new BigDecimal(v.toString());
                    Decimal d = Decimal.fromBigDecimal(bd, dt.getPrecision(), dt.getScale());
                    if (d == null) {
                        throw new IllegalArgumentException(bd + " does not fit " + dt);
                    }
                    return d;
                }
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(v.toString());
            case BINARY:
            case VARBINARY:
                return v instanceof byte[] ? v : v.toString().getBytes(StandardCharsets.UTF_8);
            case BLOB:
                return new BlobData(
                        v instanceof byte[]
                                ? (byte[]) v
                                : v.toString().getBytes(StandardCharsets.UTF_8));
            case DATE:
                return (int) LocalDate.parse(v.toString()).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (LocalTime.parse(v.toString()).toNanoOfDay() / 1_000_000);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return v instanceof Timestamp
                        ? v
                        : Timestamp.fromLocalDateTime(LocalDateTime.parse(v.toString()));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return v instanceof Timestamp ? v : Timestamp.fromInstant(Instant.parse(v.toString()));
            case ARRAY:
                {
                    DataType et = ((ArrayType) type).getElementType();
                    List<?> l = (List<?>) v;
                    Object[] arr = new Object[l.size()];
                    for (int i = 0; i < arr.length; i++) {
                        arr[i] = conv(et, l.get(i));
                    }
                    return new GenericArray(arr);
                }
            case MAP:
                {
                    MapType mt = (MapType) type;
                    Map<Object, Object> m = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                        m.put(conv(mt.getKeyType(), e.getKey()), conv(mt.getValueType(), e.getValue()));
                    }
                    return new GenericMap(m);
                }
            case ROW:
                {
                    RowType rt = (RowType) type;
                    List<?> l = (List<?>) v;
                    GenericRow r = new GenericRow(rt.getFieldCount());
                    List<DataField> fs = rt.getFields();
                    for (int i = 0; i < fs.size(); i++) {
                        r.setField(i, conv(fs.get(i).type(), l.get(i)));
                    }
                    return r;
                }
            default:
                throw new IllegalArgumentException("conv: unsupported type " + type);
        }
    }

    /** Same as {@link java.util.Arrays#asList} but accepts nulls and reads better in tables. */
    static List<Object> L(Object... xs) {
        List<Object> l = new ArrayList<>(xs.length);
        for (Object x : xs) {
            l.add(x);
        }
        return l;
    }

    static Map<Object, Object> M(Object... kv) {
        Map<Object, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    // ---------------------------------------------------------------- commits

    /** Spill / lookup directory: lookup compaction (DVs, first-row, lookup changelog) needs one. */
    static IOManager ioManager() {
        java.io.File dir = new java.io.File(System.getProperty("java.io.tmpdir"), "paimon-oracle-io");
        dir.mkdirs();
        return IOManager.create(dir.getPath());
    }

    /** Writes the rows in one batch commit (one snapshot, or none if nothing changed). */
    static void commit(FileStoreTable t, List<? extends InternalRow> rows) throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        java.util.function.ToIntFunction<InternalRow> buckets = dynamicBuckets(t);
        try (BatchTableWrite w = wb.newWrite().withIOManager(ioManager());
                BatchTableCommit c = wb.newCommit()) {
            for (InternalRow r : rows) {
                if (buckets == null) {
                    w.write(r);
                } else {
                    w.write(r, buckets.applyAsInt(r));
                }
            }
            c.commit(w.prepareCommit());
        }
    }

    /**
     * For a dynamic-bucket table, each row's bucket from Java's {@code HashBucketAssigner} over
     * the committed hash index (what a Flink writer starting now would assign); null otherwise.
     */
    static java.util.function.ToIntFunction<InternalRow> dynamicBuckets(FileStoreTable t) {
        if (t.bucketMode() != org.apache.paimon.table.BucketMode.HASH_DYNAMIC) {
            return null;
        }
        org.apache.paimon.CoreOptions o = t.coreOptions();
        org.apache.paimon.index.HashBucketAssigner assigner =
                new org.apache.paimon.index.HashBucketAssigner(
                        t.snapshotManager(), "oracle", t.store().newIndexFileHandler(), 1, 1, 0,
                        o.dynamicBucketTargetRowNum(), o.dynamicBucketMaxBuckets());
        org.apache.paimon.table.sink.RowKeyExtractor keys = t.createRowKeyExtractor();
        return r -> {
            keys.setRecord(r);
            return assigner.assign(keys.partition(), keys.trimmedPrimaryKey().hashCode());
        };
    }

    /** Writes each row to an explicit bucket (dynamic-bucket tables). */
    static void commitToBucket(FileStoreTable t, List<? extends InternalRow> rows, int bucket)
            throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite().withIOManager(ioManager());
                BatchTableCommit c = wb.newCommit()) {
            for (InternalRow r : rows) {
                w.write(r, bucket);
            }
            c.commit(w.prepareCommit());
        }
    }

    /** Full compaction of every (partition, bucket) with data, in one commit. */
    static void fullCompact(FileStoreTable t) throws Exception {
        compactBuckets(t, true);
    }

    /** Each bucket's writer compacts as after a write ({@code compact(.., false)}). */
    static void minorCompact(FileStoreTable t) throws Exception {
        compactBuckets(t, false);
    }

    private static void compactBuckets(FileStoreTable t, boolean full) throws Exception {
        if (t.coreOptions().bucket() == -2) {
            compactPostponeRealBuckets(t, full);
            return;
        }
        t = t.copy(Map.of("write-only", "false"));
        List<BucketEntry> buckets = t.newSnapshotReader().bucketEntries();
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite().withIOManager(ioManager());
                BatchTableCommit c = wb.newCommit()) {
            for (BucketEntry b : buckets) {
                w.compact(b.partition(), b.bucket(), full);
            }
            List<CommitMessage> msgs = w.prepareCommit();
            c.commit(msgs);
        }
    }

    /**
     * A postpone-bucket table's real buckets, each compacted by a writer of the table as a
     * fixed-bucket table with the partition's known bucket count ({@code
     * PostponeUtils.tableForFixBucketWrite}, as Flink's postpone jobs write them): its own
     * writers ({@code PostponeBucketWriter}) compact nothing and restore no files.
     */
    private static void compactPostponeRealBuckets(FileStoreTable t, boolean full)
            throws Exception {
        Map<BinaryRow, Integer> known = PostponeUtils.getKnownNumBuckets(t);
        Map<Integer, List<BucketEntry>> byCount = new TreeMap<>();
        for (BucketEntry b : t.newSnapshotReader().bucketEntries()) {
            Integer n = known.get(b.partition());
            if (n != null && b.bucket() >= 0) {
                byCount.computeIfAbsent(n, k -> new ArrayList<>()).add(b);
            }
        }
        List<CommitMessage> msgs = new ArrayList<>();
        for (Map.Entry<Integer, List<BucketEntry>> e : byCount.entrySet()) {
            FileStoreTable fixed =
                    PostponeUtils.tableForFixBucketWrite(t)
                            .copy(Map.of(
                                    "bucket", String.valueOf(e.getKey()),
                                    "write-only", "false"));
            try (BatchTableWrite w =
                    fixed.newBatchWriteBuilder().newWrite().withIOManager(ioManager())) {
                for (BucketEntry b : e.getValue()) {
                    w.compact(b.partition(), b.bucket(), full);
                }
                msgs.addAll(w.prepareCommit());
            }
        }
        try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
            c.commit(msgs);
        }
    }

    static int expire(FileStoreTable t, int retain) {
        return t.newExpireSnapshots()
                .config(
                        ExpireConfig.builder()
                                .snapshotRetainMax(retain)
                                .snapshotRetainMin(retain)
                                .snapshotTimeRetain(Duration.ZERO)
                                .build())
                .expire();
    }

    void skip(String what, String why) {
        String line = what + ": " + why;
        skipped.add(line);
        System.err.println("SKIP " + line);
    }
}
