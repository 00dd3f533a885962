package org.paimonrs.oracle;

import org.apache.paimon.data.BinaryArray;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.index.DeletionVectorMeta;
import org.apache.paimon.index.GlobalIndexMeta;
import org.apache.paimon.index.IndexFileMeta;
import org.apache.paimon.io.CompactIncrement;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataIncrement;
import org.apache.paimon.io.DataInputDeserializer;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.manifest.ManifestCommittableSerializer;
import org.apache.paimon.stats.SimpleStats;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.CommitMessageSerializer;
import org.apache.paimon.utils.SerializationUtils;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code decode-commit-messages MODE FILE [VERSION]}: Java's view of commit-message bytes, so
 * tests can prove that Java decodes the bytes paimon-rs writes to the values it meant.
 *
 * <p>MODE is {@code message} (one {@code CommitMessageSerializer.deserialize(VERSION, bytes)}),
 * {@code list} ({@code deserializeList}), {@code versioned} ({@code [version][length][bytes]},
 * Flink's {@code SimpleVersionedSerialization} envelope) or {@code committable} ({@code
 * ManifestCommittableSerializer.deserialize(VERSION, bytes)}, whose first output line is
 * {@code {"identifier","watermark","properties"}}). Prints one JSON line per message, ending
 * with {@code "javaBytes"}: the hex of Java's own {@code serialize} of the decoded message at
 * its current version.
 */
final class CommitMessages {

    private CommitMessages() {}

    static void decode(Args args, PrintStream out) throws Exception {
        String mode = args.positional(0);
        byte[] bytes = Files.readAllBytes(Paths.get(args.positional(1)));
        CommitMessageSerializer serializer = new CommitMessageSerializer();
        List<CommitMessage> messages;
        switch (mode) {
            case "message":
                messages = new ArrayList<>();
                messages.add(serializer.deserialize(version(args), bytes));
                break;
            case "list":
                messages = serializer.deserializeList(version(args), new DataInputDeserializer(bytes));
                break;
            case "versioned":
                {
                    DataInputDeserializer in = new DataInputDeserializer(bytes);
                    int version = in.readInt();
                    byte[] body = new byte[in.readInt()];
                    in.readFully(body);
                    if (in.available() != 0) {
                        throw new IllegalArgumentException("trailing bytes after the message");
                    }
                    messages = new ArrayList<>();
                    messages.add(serializer.deserialize(version, body));
                    break;
                }
            case "committable":
                {
                    ManifestCommittable c =
                            new ManifestCommittableSerializer().deserialize(version(args), bytes);
                    StringBuilder sb = new StringBuilder();
                    sb.append("{\"identifier\":").append(c.identifier());
                    sb.append(",\"watermark\":").append(c.watermark());
                    sb.append(",\"properties\":{");
                    boolean first = true;
                    for (Map.Entry<String, String> e : c.properties().entrySet()) {
                        if (!first) {
                            sb.append(',');
                        }
                        first = false;
                        RowJson.appendString(sb, e.getKey());
                        sb.append(':');
                        RowJson.appendString(sb, e.getValue());
                    }
                    sb.append("}}");
                    out.println(sb);
                    messages = c.fileCommittables();
                    break;
                }
            default:
                throw new IllegalArgumentException(
                        "MODE must be message, list, versioned or committable, not " + mode);
        }
        for (CommitMessage m : messages) {
            StringBuilder sb = new StringBuilder(1024);
            appendMessage(sb, (CommitMessageImpl) m);
            sb.setLength(sb.length() - 1);
            sb.append(",\"javaBytes\":");
            RowJson.appendHex(sb, serializer.serialize(m));
            sb.append('}');
            out.println(sb);
        }
    }

    private static int version(Args args) {
        return Integer.parseInt(args.positional(2));
    }

    private static void appendMessage(StringBuilder sb, CommitMessageImpl m) {
        DataIncrement d = m.newFilesIncrement();
        CompactIncrement c = m.compactIncrement();
        sb.append("{\"partition\":");
        RowJson.appendHex(sb, SerializationUtils.serializeBinaryRow(m.partition()));
        sb.append(",\"bucket\":").append(m.bucket());
        sb.append(",\"totalBuckets\":").append(m.totalBuckets());
        sb.append(",\"newFiles\":");
        appendFiles(sb, d.newFiles());
        sb.append(",\"deletedFiles\":");
        appendFiles(sb, d.deletedFiles());
        sb.append(",\"changelogFiles\":");
        appendFiles(sb, d.changelogFiles());
        sb.append(",\"newIndexFiles\":");
        appendIndexFiles(sb, d.newIndexFiles());
        sb.append(",\"deletedIndexFiles\":");
        appendIndexFiles(sb, d.deletedIndexFiles());
        sb.append(",\"compactBefore\":");
        appendFiles(sb, c.compactBefore());
        sb.append(",\"compactAfter\":");
        appendFiles(sb, c.compactAfter());
        sb.append(",\"compactChangelogFiles\":");
        appendFiles(sb, c.changelogFiles());
        sb.append(",\"compactNewIndexFiles\":");
        appendIndexFiles(sb, c.newIndexFiles());
        sb.append(",\"compactDeletedIndexFiles\":");
        appendIndexFiles(sb, c.deletedIndexFiles());
        sb.append('}');
    }

    private static void appendFiles(StringBuilder sb, List<DataFileMeta> files) {
        sb.append('[');
        for (int i = 0; i < files.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            DataFileMeta f = files.get(i);
            sb.append("{\"fileName\":");
            RowJson.appendString(sb, f.fileName());
            sb.append(",\"fileSize\":").append(f.fileSize());
            sb.append(",\"rowCount\":").append(f.rowCount());
            sb.append(",\"minKey\":");
            RowJson.appendHex(sb, SerializationUtils.serializeBinaryRow(f.minKey()));
            sb.append(",\"maxKey\":");
            RowJson.appendHex(sb, SerializationUtils.serializeBinaryRow(f.maxKey()));
            sb.append(",\"keyStats\":");
            appendStats(sb, f.keyStats());
            sb.append(",\"valueStats\":");
            appendStats(sb, f.valueStats());
            sb.append(",\"minSequenceNumber\":").append(f.minSequenceNumber());
            sb.append(",\"maxSequenceNumber\":").append(f.maxSequenceNumber());
            sb.append(",\"schemaId\":").append(f.schemaId());
            sb.append(",\"level\":").append(f.level());
            sb.append(",\"extraFiles\":");
            appendStrings(sb, f.extraFiles());
            sb.append(",\"creationTime\":")
                    .append(f.creationTime() == null ? null : f.creationTime().getMillisecond());
            sb.append(",\"deleteRowCount\":").append(f.deleteRowCount().orElse(null));
            sb.append(",\"embeddedIndex\":");
            if (f.embeddedIndex() == null) {
                sb.append("null");
            } else {
                RowJson.appendHex(sb, f.embeddedIndex());
            }
            sb.append(",\"fileSource\":")
                    .append(f.fileSource().map(s -> (int) s.toByteValue()).orElse(null));
            sb.append(",\"valueStatsCols\":");
            appendStrings(sb, f.valueStatsCols());
            sb.append(",\"externalPath\":");
            appendNullableString(sb, f.externalPath().orElse(null));
            sb.append(",\"firstRowId\":").append(f.firstRowId());
            sb.append(",\"writeCols\":");
            appendStrings(sb, f.writeCols());
            sb.append('}');
        }
        sb.append(']');
    }

    private static void appendStats(StringBuilder sb, SimpleStats s) {
        sb.append("{\"min\":");
        RowJson.appendHex(sb, SerializationUtils.serializeBinaryRow(s.minValues()));
        sb.append(",\"max\":");
        RowJson.appendHex(sb, SerializationUtils.serializeBinaryRow(s.maxValues()));
        sb.append(",\"nullCounts\":");
        BinaryArray nulls = s.nullCounts();
        if (nulls == null) {
            sb.append("null");
        } else {
            sb.append('[');
            for (int i = 0; i < nulls.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(nulls.isNullAt(i) ? "null" : String.valueOf(nulls.getLong(i)));
            }
            sb.append(']');
        }
        sb.append('}');
    }

    private static void appendIndexFiles(StringBuilder sb, List<IndexFileMeta> files) {
        sb.append('[');
        for (int i = 0; i < files.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            IndexFileMeta f = files.get(i);
            sb.append("{\"indexType\":");
            RowJson.appendString(sb, f.indexType());
            sb.append(",\"fileName\":");
            RowJson.appendString(sb, f.fileName());
            sb.append(",\"fileSize\":").append(f.fileSize());
            sb.append(",\"rowCount\":").append(f.rowCount());
            sb.append(",\"dvRanges\":");
            if (f.dvRanges() == null) {
                sb.append("null");
            } else {
                sb.append('[');
                boolean first = true;
                for (DeletionVectorMeta dv : f.dvRanges().values()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    sb.append("{\"dataFileName\":");
                    RowJson.appendString(sb, dv.dataFileName());
                    sb.append(",\"offset\":").append(dv.offset());
                    sb.append(",\"length\":").append(dv.length());
                    sb.append(",\"cardinality\":").append(dv.cardinality());
                    sb.append('}');
                }
                sb.append(']');
            }
            sb.append(",\"externalPath\":");
            appendNullableString(sb, f.externalPath());
            sb.append(",\"globalIndex\":");
            GlobalIndexMeta g = f.globalIndexMeta();
            if (g == null) {
                sb.append("null");
            } else {
                sb.append("{\"rowRangeStart\":").append(g.rowRangeStart());
                sb.append(",\"rowRangeEnd\":").append(g.rowRangeEnd());
                sb.append(",\"indexFieldId\":").append(g.indexFieldId());
                sb.append(",\"extraFieldIds\":");
                if (g.extraFieldIds() == null) {
                    sb.append("null");
                } else {
                    sb.append('[');
                    for (int k = 0; k < g.extraFieldIds().length; k++) {
                        if (k > 0) {
                            sb.append(',');
                        }
                        sb.append(g.extraFieldIds()[k]);
                    }
                    sb.append(']');
                }
                sb.append(",\"indexMeta\":");
                if (g.indexMeta() == null) {
                    sb.append("null");
                } else {
                    RowJson.appendHex(sb, g.indexMeta());
                }
                sb.append('}');
            }
            sb.append('}');
        }
        sb.append(']');
    }

    private static void appendStrings(StringBuilder sb, List<String> values) {
        if (values == null) {
            sb.append("null");
            return;
        }
        sb.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            RowJson.appendString(sb, values.get(i));
        }
        sb.append(']');
    }

    private static void appendNullableString(StringBuilder sb, String s) {
        if (s == null) {
            sb.append("null");
        } else {
            RowJson.appendString(sb, s);
        }
    }
}
