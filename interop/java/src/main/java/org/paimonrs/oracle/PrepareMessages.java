package org.paimonrs.oracle;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.RowType;

/**
 * {@code prepare-messages TABLE_PATH OUT_DIR --from A --to B [--commit true]}: Java writes the rows
 * {@code (id, v)} = {@code (i, "java-<i>")} for i in [A, B) into a table whose columns are
 * {@code id BIGINT, v STRING}, and commits nothing: each message of {@code prepareCommit()} is
 * written as {@code OUT_DIR/java-message-<n>.bin} ({@code CommitMessageSerializer.serialize},
 * Java's current version), for another committer to commit; with {@code --commit true} Java
 * also commits them itself. On a dynamic-bucket table the rows get their buckets from Java's
 * {@code HashBucketAssigner} over the committed hash index, as a Flink writer's would. Prints
 * {"version":V,"messages":N}.
 */
final class PrepareMessages {

    private PrepareMessages() {}

    static void prepare(Args a, PrintStream out) throws Exception {
        FileStoreTable t = Commands.open(a.positional(0));
        Path dir = Paths.get(a.positional(1));
        long from = a.getLong("--from", 0);
        long to = a.getLong("--to", 10);
        RowType rowType = t.rowType();
        if (rowType.getFieldCount() != 2
                || rowType.getTypeAt(0).getTypeRoot() != DataTypeRoot.BIGINT
                || rowType.getTypeAt(1).getTypeRoot() != DataTypeRoot.VARCHAR) {
            throw new IllegalArgumentException("prepare-messages needs columns (id BIGINT, v STRING), got " + rowType);
        }
        Files.createDirectories(dir);
        BatchWriteBuilder builder = t.newBatchWriteBuilder();
        List<CommitMessage> messages;
        try (BatchTableWrite write = builder.newWrite().withIOManager(Fx.ioManager())) {
            java.util.function.ToIntFunction<org.apache.paimon.data.InternalRow> buckets =
                    Fx.dynamicBuckets(t);
            for (long i = from; i < to; i++) {
                GenericRow row = GenericRow.of(i, BinaryString.fromString("java-" + i));
                if (buckets == null) {
                    write.write(row);
                } else {
                    write.write(row, buckets.applyAsInt(row));
                }
            }
            messages = write.prepareCommit();
        }
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        for (int i = 0; i < messages.size(); i++) {
            Files.write(dir.resolve("java-message-" + i + ".bin"), serializer.serialize(messages.get(i)));
        }
        if (a.has("--commit") && Boolean.parseBoolean(a.get("--commit"))) {
            try (BatchTableCommit commit = builder.newCommit()) {
                commit.commit(messages);
            }
        }
        out.println("{\"version\":" + serializer.getVersion() + ",\"messages\":" + messages.size() + "}");
    }
}
