package org.paimonrs.oracle;

import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.deletionvectors.Bitmap64DeletionVector;
import org.apache.paimon.deletionvectors.BitmapDeletionVector;
import org.apache.paimon.deletionvectors.DeletionVector;
import org.apache.paimon.deletionvectors.append.BaseAppendDeleteFileMaintainer;
import org.apache.paimon.index.IndexFileHandler;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.manifest.FileKind;
import org.apache.paimon.manifest.IndexManifestEntry;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.source.DataSplit;

import java.util.ArrayList;
import java.util.List;

/**
 * Deletion vectors on append tables, written the way Paimon's Spark DELETE does: a
 * {@link BaseAppendDeleteFileMaintainer} loaded from the latest snapshot records a DV per data
 * file, persists the DV index file(s), and a commit carries only the index increment.
 */
final class FixturesDv {

    private FixturesDv() {}

    static void register(List<Object[]> all) {
        for (String[] v : new String[][] {{"dv_append", "false", "-1"},
                {"dv_append_bitmap64", "true", "-1"}, {"dv_append_bucketed", "false", "2"}}) {
            all.add(new Object[] {"append." + v[0], (Fixtures.TableWriter) fx -> {
                org.apache.paimon.schema.Schema.Builder b = Fixtures.basicSchema()
                        .option("deletion-vectors.enabled", "true")
                        .option("deletion-vectors.bitmap64", v[1])
                        .option("bucket", v[2]);
                if (!v[2].equals("-1")) {
                    b.option("bucket-key", "id");
                }
                FileStoreTable t = fx.create("append", v[0], b.build());
                boolean bitmap64 = Boolean.parseBoolean(v[1]);
                Fx.commit(t, Fixtures.basicRows(t.rowType(), 0, 30));
                Fx.commit(t, Fixtures.basicRows(t.rowType(), 30, 30));
                // Round 1: every 4th row of every file; round 2 (after another append) adds
                // every 5th row of the files deleted from before, so old DVs are replaced.
                deleteRows(t, 4, 0, bitmap64);
                Fx.commit(t, Fixtures.basicRows(t.rowType(), 60, 20));
                deleteRows(t, 5, 1, bitmap64);
            }});
        }
    }

    /** Deletes positions p with p % every == offset % every in every live data file. */
    private static void deleteRows(FileStoreTable t, int every, int offset, boolean bitmap64)
            throws Exception {
        IndexFileHandler handler = t.store().newIndexFileHandler();
        List<CommitMessage> msgs = new ArrayList<>();
        // One maintainer per (partition, bucket): group the live files of the latest snapshot.
        java.util.Map<String, List<DataSplit>> groups = new java.util.LinkedHashMap<>();
        for (DataSplit s : t.newSnapshotReader().read().dataSplits()) {
            groups.computeIfAbsent(s.partition().toString() + "/" + s.bucket(), k -> new ArrayList<>()).add(s);
        }
        for (List<DataSplit> splits : groups.values()) {
            BinaryRow partition = splits.get(0).partition();
            int bucket = splits.get(0).bucket();
            BaseAppendDeleteFileMaintainer m = t.coreOptions().bucket() == -1
                    ? BaseAppendDeleteFileMaintainer.forUnawareAppend(
                            handler, t.latestSnapshot().get(), partition)
                    : BaseAppendDeleteFileMaintainer.forBucketedAppend(
                            handler, t.latestSnapshot().get(), partition, bucket);
            for (DataSplit s : splits) {
                for (int i = 0; i < s.dataFiles().size(); i++) {
                    DataFileMeta f = s.dataFiles().get(i);
                    DeletionVector dv = bitmap64 ? new Bitmap64DeletionVector() : new BitmapDeletionVector();
                    if (s.deletionFiles().isPresent() && s.deletionFiles().get().get(i) != null) {
                        DeletionVector old = DeletionVector.read(t.fileIO(), s.deletionFiles().get().get(i));
                        for (long p = 0; p < f.rowCount(); p++) {
                            if (old.isDeleted(p)) {
                                dv.delete(p);
                            }
                        }
                    }
                    for (long p = offset % every; p < f.rowCount(); p += every) {
                        dv.delete(p);
                    }
                    m.notifyNewDeletionVector(f.fileName(), dv);
                }
            }
            List<IndexFileMeta> added = new ArrayList<>();
            List<IndexFileMeta> deleted = new ArrayList<>();
            for (IndexManifestEntry e : m.persist()) {
                (e.kind() == FileKind.ADD ? added : deleted).add(e.indexFile());
            }
            Integer total = t.coreOptions().bucket() > 0 ? t.coreOptions().bucket() : null;
            msgs.add(new CommitMessageImpl(m.getPartition(), m.getBucket(), total,
                    new DataIncrement(List.of(), List.of(), List.of(), added, deleted),
                    CompactIncrement.emptyIncrement()));
        }
        try (BatchTableCommit c = t.newBatchWriteBuilder().newCommit()) {
            c.commit(msgs);
        }
    }
}
