package org.paimonrs.oracle;

import static org.paimonrs.oracle.Fx.row;

import org.apache.paimon.data.BinaryVector;
import org.apache.paimon.data.BlobData;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.schema.SchemaChange;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Data-evolution tables with BLOB columns added later, and VECTOR columns in vector-store files. */
final class FixturesBlob {

    private FixturesBlob() {}

    static void register(List<Object[]> all) {
        FixturesAppend.reg(all, "append.blob_evolution", FixturesBlob::blobEvolution);
        FixturesAppend.reg(all, "append.vector_store", FixturesBlob::vectorStore);
        FixturesAppend.reg(all, "append.blob_array", FixturesBlob::blobArray);
    }

    private static byte[] bytes(Random rnd, int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        return b;
    }

    /**
     * Snapshot 1: rows 0..9 (id, name), no blob column yet. Schema 1 adds BLOB column doc.
     * Snapshot 2: rows 10..19 with doc (row 13 null): one normal file and, with
     * blob.target-file-size 1 b, nine .blob files. Snapshot 3: column group (name, doc) written
     * for row ids 0..9 (row 4's doc null): a normal file and nine .blob files, merged with the
     * schema-0 file of that range. (Java 1.4.2 cannot write a doc-only group: its normal-file
     * writer fails on the empty Parquet schema.)
     */
    private static void blobEvolution(Fx fx) throws Exception {
        FileStoreTable t = fx.create("append", "blob_evolution", Fx.schema()
                .column("id", DataTypes.INT())
                .column("name", DataTypes.STRING())
                .option("row-tracking.enabled", "true")
                .option("data-evolution.enabled", "true")
                .option("blob.target-file-size", "1 b")
                .build());
        List<GenericRow> first = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            first.add(row(t.rowType(), i, "n" + i));
        }
        Fx.commit(t, first);
        t = fx.alter(t, SchemaChange.addColumn("doc", DataTypes.BLOB()));
        Random rnd = new Random(7);
        List<GenericRow> second = new ArrayList<>();
        for (int i = 10; i < 20; i++) {
            second.add(row(t.rowType(), i, "n" + i, i == 13 ? null : bytes(rnd, 5 + i)));
        }
        Fx.commit(t, second);
        RowType doc = t.rowType().project("name", "doc");
        List<GenericRow> docs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            docs.add(row(doc, "N" + i, i == 4 ? null : bytes(rnd, 3 * i + 1)));
        }
        commitColumnGroup(t, doc, docs, 0L);
    }

    /**
     * VECTOR&lt;FLOAT, 3&gt; column emb stored in Avro vector-store files (vector.file.format;
     * 1.4.2's Parquet and ORC refuse VECTOR). Snapshot 1: rows 0..1099, the vector-store writer
     * rolls after 1000 rows (two .vector.avro files); snapshot 2: rows 1100..1109 (row 1103's
     * emb null); snapshot 3: column name rewritten for row ids 0..1099.
     */
    private static void vectorStore(Fx fx) throws Exception {
        FileStoreTable t = fx.create("append", "vector_store", Fx.schema()
                .column("id", DataTypes.INT())
                .column("name", DataTypes.STRING())
                .column("emb", DataTypes.VECTOR(3, DataTypes.FLOAT()))
                .option("row-tracking.enabled", "true")
                .option("data-evolution.enabled", "true")
                .option("vector.file.format", "avro")
                .option("vector.target-file-size", "1 b")
                .build());
        for (int[] r : new int[][] {{0, 1100}, {1100, 10}}) {
            List<GenericRow> rows = new ArrayList<>();
            for (int i = r[0]; i < r[0] + r[1]; i++) {
                GenericRow g = new GenericRow(3);
                g.setField(0, i);
                g.setField(1, org.apache.paimon.data.BinaryString.fromString("v" + i));
                g.setField(2, i == 1103 ? null
                        : BinaryVector.fromPrimitiveArray(new float[] {i, i * 0.5f, -i}));
                rows.add(g);
            }
            Fx.commit(t, rows);
        }
        RowType name = t.rowType().project("name");
        List<GenericRow> upd = new ArrayList<>();
        for (int i = 0; i < 1100; i++) {
            upd.add(row(name, "V" + i));
        }
        commitColumnGroup(t, name, upd, 0L);
    }

    /**
     * ARRAY&lt;BLOB&gt; column: Java 1.4.2 creates the table but its Parquet writer refuses the
     * first row ("BLOB in array is not supported."), so this stays a SKIP in skipped.txt.
     */
    private static void blobArray(Fx fx) throws Exception {
        FileStoreTable t = fx.create("append", "blob_array", Fx.schema()
                .column("id", DataTypes.INT())
                .column("docs", DataTypes.ARRAY(DataTypes.BLOB()))
                .option("row-tracking.enabled", "true")
                .option("data-evolution.enabled", "true")
                .build());
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            GenericRow g = new GenericRow(2);
            g.setField(0, i);
            g.setField(1, new GenericArray(new Object[] {
                new BlobData(new byte[] {(byte) i}), new BlobData(new byte[] {1, 2, (byte) i})}));
            rows.add(g);
        }
        Fx.commit(t, rows);
    }

    /**
     * Like {@link FixturesAppend#commitColumnGroup}, but a group that rolls into several files
     * gives each file the row ids it holds: files of one kind (the normal files, or the blob /
     * vector-store files of one set of columns) get consecutive ranges from firstRowId.
     */
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
                Map<String, Long> next = new HashMap<>();
                List<DataFileMeta> assigned = new ArrayList<>();
                for (DataFileMeta f : files) {
                    String name = f.fileName();
                    String kind = name.endsWith(".blob") || name.contains(".vector.")
                            ? String.valueOf(f.writeCols())
                            : "normal";
                    long id = next.getOrDefault(kind, firstRowId);
                    assigned.add(f.assignFirstRowId(id));
                    next.put(kind, id + f.rowCount());
                }
                files.clear();
                files.addAll(assigned);
            }
            c.commit(msgs);
        }
    }
}
