package org.paimonrs.oracle;

import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.FileIO;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.io.DataInputDeserializer;
import org.apache.paimon.io.DataOutputViewStreamWrapper;
import org.apache.paimon.options.Options;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.SpecialFields;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.table.source.DeletionFile;
import org.apache.paimon.table.source.EndOfScanException;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.SnapshotNotExistPlan;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.RowType;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** dump, plan and read-split. */
final class Commands {

    /** The cross-language SplitSerializer frame magic, "SPLIT_V1" as a big-endian long. */
    static final long SPLIT_V1_MAGIC = 0x53504C49545F5631L;
    /** The DataSplit version Paimon 1.4.2 writes; it cannot write any other. */
    static final int JAVA_SPLIT_VERSION = 8;

    private Commands() {}

    // ---------------------------------------------------------------- table access

    /**
     * Opens a table directory, or a table URL ({@code hdfs://nn:port/...}) through the FileIO
     * Paimon picks for its scheme (Hadoop's client for HDFS).
     */
    static FileStoreTable open(String tablePath) {
        if (tablePath.contains("://") && !tablePath.startsWith("file:")) {
            Path url = new Path(tablePath);
            try {
                FileIO io = FileIO.get(url, CatalogContext.create(new Options()));
                return FileStoreTableFactory.create(io, url);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open " + tablePath, e);
            }
        }
        String abs = Paths.get(tablePath).toAbsolutePath().normalize().toString();
        return FileStoreTableFactory.create(LocalFileIO.create(), new Path(abs));
    }

    /** Opens the table and applies --branch, --snapshot/--tag/--incremental and --option. */
    static FileStoreTable openScoped(String tablePath, Args a) {
        FileStoreTable t = open(tablePath);
        if (a.has("--branch")) {
            t = t.switchToBranch(a.get("--branch"));
        }
        Map<String, String> dyn = new HashMap<>();
        int travel = 0;
        if (a.has("--snapshot")) {
            dyn.put("scan.snapshot-id", a.get("--snapshot"));
            travel++;
        }
        if (a.has("--tag")) {
            dyn.put("scan.tag-name", a.get("--tag"));
            travel++;
        }
        if (a.has("--incremental")) {
            dyn.put("incremental-between", a.get("--incremental"));
            travel++;
        }
        if (a.has("--incremental-mode")) {
            dyn.put("incremental-between-scan-mode", a.get("--incremental-mode"));
        }
        if (a.has("--changes-since")) {
            travel++;
        }
        if (travel > 1) {
            throw new IllegalArgumentException(
                    "--snapshot, --tag, --incremental and --changes-since are mutually exclusive");
        }
        for (String kv : a.getAll("--option")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--option wants k=v, got " + kv);
            }
            dyn.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return dyn.isEmpty() ? t : t.copy(dyn);
    }

    /** What a query reads: the columns to print, the columns to read and the filter. */
    static final class Query {
        final ReadBuilder readBuilder;
        final RowType outType;
        final Predicate filter;

        Query(ReadBuilder readBuilder, RowType outType, Predicate filter) {
            this.readBuilder = readBuilder;
            this.outType = outType;
            this.filter = filter;
        }

        TableRead newRead() {
            TableRead read = readBuilder.newRead();
            return filter == null ? read : read.executeFilter();
        }
    }

    static Query query(FileStoreTable table, Args a) {
        RowType full = table.rowType();
        List<String> out = new ArrayList<>();
        if (a.has("--select")) {
            for (String c : a.get("--select").split(",")) {
                if (!c.trim().isEmpty()) {
                    out.add(c.trim());
                }
            }
        } else {
            out.addAll(full.getFieldNames());
        }
        Predicate filter = null;
        List<String> read = new ArrayList<>(out);
        if (a.has("--filter")) {
            FilterParser.Parsed p = FilterParser.parse(full, a.get("--filter"));
            filter = p.predicate;
            // A filter on a column that is not read would be silently dropped by executeFilter.
            for (String c : p.columns) {
                if (!read.contains(c)) {
                    read.add(c);
                }
            }
        }
        List<DataField> readFields = new ArrayList<>();
        for (String c : read) {
            readFields.add(field(full, c));
        }
        RowType readType = new RowType(readFields);
        ReadBuilder rb = table.newReadBuilder();
        if (!read.equals(full.getFieldNames())) {
            rb = rb.withReadType(readType);
        }
        if (filter != null) {
            rb = rb.withFilter(filter);
        }
        return new Query(rb, new RowType(readFields.subList(0, out.size())), filter);
    }

    private static DataField field(RowType full, String name) {
        int idx = full.getFieldIndex(name);
        if (idx >= 0) {
            return full.getFields().get(idx);
        }
        if (name.equals(SpecialFields.ROW_ID.name())) {
            return SpecialFields.ROW_ID;
        }
        if (name.equals(SpecialFields.SEQUENCE_NUMBER.name())) {
            return SpecialFields.SEQUENCE_NUMBER;
        }
        throw new IllegalArgumentException("unknown column " + name + " (table has " + full + ")");
    }

    // ---------------------------------------------------------------- dump

    /**
     * The splits of the query: a batch scan, or with {@code --changes-since N} Java's streaming
     * scan restored at snapshot N+1 and planned until no further snapshot exists (the delta or
     * changelog splits of every snapshot after N that its follow-up scanner reads).
     */
    static List<Split> splits(Query q, Args a) {
        if (!a.has("--changes-since")) {
            return q.readBuilder.newScan().plan().splits();
        }
        StreamTableScan scan = q.readBuilder.newStreamScan();
        scan.restore(Long.parseLong(a.get("--changes-since")) + 1);
        List<Split> out = new ArrayList<>();
        while (true) {
            TableScan.Plan plan;
            try {
                plan = scan.plan();
            } catch (EndOfScanException e) {
                break;
            }
            if (plan instanceof SnapshotNotExistPlan) {
                break;
            }
            out.addAll(plan.splits());
        }
        return out;
    }

    static void dump(Args a, PrintStream out) throws Exception {
        FileStoreTable table = openScoped(a.positional(0), a);
        Query q = query(table, a);
        List<Split> splits = splits(q, a);
        List<String> lines = new ArrayList<>();
        TableRead read = q.newRead();
        for (Split split : splits) {
            readInto(read, split, q.outType, a.has("--with-kind"), lines);
        }
        print(lines, a.has("--sort"), out);
    }

    static void readInto(
            TableRead read, Split split, RowType outType, boolean withKind, List<String> lines)
            throws IOException {
        try (RecordReader<InternalRow> reader = read.createReader(split)) {
            reader.forEachRemaining(
                    row ->
                            lines.add(
                                    withKind
                                            ? RowJson.encodeWithKind(row, outType)
                                            : RowJson.encode(row, outType)));
        }
    }

    static void print(List<String> lines, boolean sort, PrintStream out) {
        if (sort) {
            // Byte order of the UTF-8 text, so `LC_ALL=C sort` gives the same order.
            lines.sort(
                    (x, y) ->
                            Arrays.compareUnsigned(
                                    x.getBytes(StandardCharsets.UTF_8),
                                    y.getBytes(StandardCharsets.UTF_8)));
        }
        for (String l : lines) {
            out.print(l);
            out.print('\n');
        }
    }

    // ---------------------------------------------------------------- plan

    static void plan(Args a, PrintStream out) throws Exception {
        FileStoreTable table = openScoped(a.positional(0), a);
        if (!a.has("--out-dir")) {
            throw new IllegalArgumentException("plan needs --out-dir DIR");
        }
        if (a.has("--split-version")
                && Integer.parseInt(a.get("--split-version")) != JAVA_SPLIT_VERSION) {
            throw new IllegalArgumentException(
                    "Paimon 1.4.2 always writes DataSplit version "
                            + JAVA_SPLIT_VERSION
                            + "; it cannot write version "
                            + a.get("--split-version"));
        }
        java.nio.file.Path dir = Paths.get(a.get("--out-dir"));
        Files.createDirectories(dir);
        Query q = query(table, a);
        List<Split> splits = splits(q, a);
        RowType partType = table.schema().logicalPartitionType();
        for (int i = 0; i < splits.size(); i++) {
            Split s = splits.get(i);
            String name = String.format("split-%04d.bin", i);
            byte[] bytes;
            String kind;
            if (s.getClass() == DataSplit.class) {
                ByteArrayOutputStream bos = new ByteArrayOutputStream();
                ((DataSplit) s).serialize(new DataOutputViewStreamWrapper(bos));
                bytes = bos.toByteArray();
                kind = "DataSplit";
            } else {
                ByteArrayOutputStream bos = new ByteArrayOutputStream();
                try (ObjectOutputStream oos = new ObjectOutputStream(bos)) {
                    oos.writeObject(s);
                }
                bytes = bos.toByteArray();
                kind = "java-serialized " + s.getClass().getName();
            }
            Files.write(dir.resolve(name), bytes);
            out.println(summary(name, kind, s, partType));
        }
    }

    static String summary(String file, String kind, Split s, RowType partType) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"file\":").append(RowJson.quote(file));
        sb.append(",\"type\":").append(RowJson.quote(kind));
        sb.append(",\"rowCount\":").append(s.rowCount());
        if (s instanceof DataSplit) {
            DataSplit d = (DataSplit) s;
            sb.append(",\"snapshot\":").append(d.snapshotId());
            sb.append(",\"partition\":").append(RowJson.encode(d.partition(), partType));
            sb.append(",\"bucket\":").append(d.bucket());
            sb.append(",\"bucketPath\":").append(RowJson.quote(d.bucketPath()));
            sb.append(",\"totalBuckets\":").append(d.totalBuckets());
            sb.append(",\"isStreaming\":").append(d.isStreaming());
            sb.append(",\"rawConvertible\":").append(d.rawConvertible());
            Optional<List<DeletionFile>> dvs = d.deletionFiles();
            sb.append(",\"files\":[");
            List<DataFileMeta> files = d.dataFiles();
            for (int i = 0; i < files.size(); i++) {
                DataFileMeta f = files.get(i);
                if (i > 0) {
                    sb.append(',');
                }
                sb.append("{\"name\":").append(RowJson.quote(f.fileName()));
                sb.append(",\"level\":").append(f.level());
                sb.append(",\"rowCount\":").append(f.rowCount());
                sb.append(",\"fileSize\":").append(f.fileSize());
                sb.append(",\"schemaId\":").append(f.schemaId());
                sb.append(",\"minSequenceNumber\":").append(f.minSequenceNumber());
                sb.append(",\"maxSequenceNumber\":").append(f.maxSequenceNumber());
                sb.append(",\"deleteRowCount\":").append(f.deleteRowCount().orElse(null));
                sb.append(",\"firstRowId\":").append(f.firstRowId());
                if (f.externalPath().isPresent()) {
                    sb.append(",\"externalPath\":").append(RowJson.quote(f.externalPath().get()));
                }
                DeletionFile df = dvs.isPresent() ? dvs.get().get(i) : null;
                if (df != null) {
                    sb.append(",\"deletionFile\":{\"path\":").append(RowJson.quote(df.path()));
                    sb.append(",\"offset\":").append(df.offset());
                    sb.append(",\"length\":").append(df.length());
                    sb.append(",\"cardinality\":").append(df.cardinality()).append('}');
                }
                sb.append('}');
            }
            sb.append(']');
        }
        sb.append('}');
        return sb.toString();
    }

    // ---------------------------------------------------------------- read-split

    static void readSplit(Args a, PrintStream out) throws Exception {
        FileStoreTable table = openScoped(a.positional(0), a);
        if (a.positional.size() < 2) {
            throw new IllegalArgumentException("read-split needs at least one SPLIT_FILE");
        }
        Query q = query(table, a);
        TableRead read = q.newRead();
        List<String> lines = new ArrayList<>();
        for (String f : a.positional.subList(1, a.positional.size())) {
            Split split = decodeSplit(Files.readAllBytes(Paths.get(f)), f);
            readInto(read, split, q.outType, a.has("--with-kind"), lines);
        }
        print(lines, a.has("--sort"), out);
    }

    /**
     * Accepts a raw {@code DataSplit.serialize} image (any version Java reads), the
     * cross-language SPLIT_V1 frame with type 1 (DataSplit), 3 (IndexedSplit) or 5
     * (QueryAuthSplit), or a Java object stream. Paimon 1.4.2 has the classes of types 3 and 5
     * but not {@code SplitSerializer}; their frame bodies are decoded here as that serializer
     * writes them.
     */
    static Split decodeSplit(byte[] bytes, String name) throws Exception {
        if (bytes.length >= 2 && (bytes[0] & 0xFF) == 0xAC && (bytes[1] & 0xFF) == 0xED) {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
                return (Split) in.readObject();
            }
        }
        if (bytes.length >= 16 && ByteBuffer.wrap(bytes).getLong(0) == SPLIT_V1_MAGIC) {
            DataInputDeserializer in = new DataInputDeserializer(bytes);
            Split split = decodeFrame(in, name, 0);
            if (in.available() != 0) {
                throw new IOException(name + ": " + in.available() + " bytes after the frame");
            }
            return split;
        }
        return DataSplit.deserialize(new DataInputDeserializer(bytes));
    }

    private static Split decodeFrame(DataInputDeserializer in, String name, int depth)
            throws IOException {
        if (depth > 8) {
            throw new IOException(name + ": SPLIT_V1 frames nested too deep");
        }
        if (in.readLong() != SPLIT_V1_MAGIC) {
            throw new IOException(name + ": wrong SPLIT_V1 magic inside a frame");
        }
        int version = in.readInt();
        int type = in.readInt();
        if (version != 1) {
            throw new IOException(name + ": SPLIT_V1 frame version " + version + " unsupported");
        }
        switch (type) {
            case 1:
                return DataSplit.deserialize(in);
            case 3:
                return org.apache.paimon.globalindex.IndexedSplit.deserialize(in);
            case 5:
                {
                    Split inner = decodeFrame(in, name, depth + 1);
                    org.apache.paimon.catalog.TableQueryAuthResult auth = null;
                    if (in.readBoolean()) {
                        List<String> filter = null;
                        if (in.readBoolean()) {
                            int n = in.readInt();
                            filter = new ArrayList<>();
                            for (int i = 0; i < n; i++) {
                                filter.add(readFrameString(in));
                            }
                        }
                        Map<String, String> masks = null;
                        if (in.readBoolean()) {
                            int n = in.readInt();
                            masks = new HashMap<>();
                            for (int i = 0; i < n; i++) {
                                String k = readFrameString(in);
                                masks.put(k, readFrameString(in));
                            }
                        }
                        auth = new org.apache.paimon.catalog.TableQueryAuthResult(filter, masks);
                    }
                    return new org.apache.paimon.table.source.QueryAuthSplit(inner, auth);
                }
            default:
                throw new IOException(
                        name
                                + ": SPLIT_V1 split type "
                                + type
                                + " unsupported by this oracle (1 DataSplit, 3 IndexedSplit,"
                                + " 5 QueryAuthSplit)");
        }
    }

    /** An int length (negative: null) and that many UTF-8 bytes. */
    private static String readFrameString(DataInputDeserializer in) throws IOException {
        int len = in.readInt();
        if (len < 0) {
            return null;
        }
        byte[] b = new byte[len];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
