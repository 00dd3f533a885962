package org.paimonrs.oracle;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.DelegateCatalog;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.catalog.PropertyChange;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataTypes;

import org.apache.paimon.PagedList;
import org.apache.paimon.partition.Partition;
import org.apache.paimon.rest.responses.GetTagResponse;
import org.apache.paimon.table.DataTable;
import org.apache.paimon.tag.Tag;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Java's catalogs opened from catalog options given as {@code --catalog-option KEY=VALUE}
 * (repeatable; Java's own keys: {@code metastore}, {@code warehouse}, {@code uri},
 * {@code jdbc.user}, {@code catalog-key}, {@code lock.enabled}...), for the interop tests of
 * paimon-rs's JDBC catalog (and any other catalog Java opens from options, such as Hive).
 */
final class CatalogOracle {

    private CatalogOracle() {}

    static Catalog catalog(Args a) {
        Options o = new Options();
        for (String kv : a.getAll("--catalog-option")) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--catalog-option wants KEY=VALUE, got " + kv);
            }
            o.set(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /**
     * {@code catalog-write --catalog-option K=V... DB.TABLE --from A --to B [--commits N]
     * [--parts K]}: creates the database and the table {@code (id INT, v STRING)} if missing,
     * then writes rows (id, 'java-<id>') for id in [A, B) in N batch commits (default 1) of
     * consecutive ids. With {@code --parts K} the table is {@code (id INT, v STRING, p INT)}
     * partitioned by p, and each row's p is id mod K.
     */
    static void write(Args a, PrintStream out) throws Exception {
        Identifier id = Identifier.fromString(a.positional(0));
        long from = a.getLong("--from", 0);
        long to = a.getLong("--to", 0);
        long commits = Math.max(1, a.getLong("--commits", 1));
        long parts = a.getLong("--parts", 0);
        try (Catalog catalog = catalog(a)) {
            catalog.createDatabase(id.getDatabaseName(), true);
            Schema.Builder sb =
                    Schema.newBuilder()
                            .column("id", DataTypes.INT())
                            .column("v", DataTypes.STRING());
            if (parts > 0) {
                sb.column("p", DataTypes.INT()).partitionKeys("p");
            }
            Schema schema = sb.build();
            catalog.createTable(id, schema, true);
            Table t = catalog.getTable(id);
            long per = Math.max(1, (to - from + commits - 1) / commits);
            for (long start = from; start < to; start += per) {
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite w = wb.newWrite();
                        BatchTableCommit c = wb.newCommit()) {
                    for (long i = start; i < Math.min(to, start + per); i++) {
                        BinaryString v = BinaryString.fromString("java-" + i);
                        w.write(
                                parts > 0
                                        ? GenericRow.of((int) i, v, (int) (i % parts))
                                        : GenericRow.of((int) i, v));
                    }
                    c.commit(w.prepareCommit());
                }
            }
            out.println("{\"written\":" + (to - from) + "}");
        }
    }

    /** {@code catalog-dump --catalog-option K=V... DB.TABLE}: every row of the table, sorted. */
    static void dump(Args a, PrintStream out) throws Exception {
        Identifier id = Identifier.fromString(a.positional(0));
        try (Catalog catalog = catalog(a)) {
            Table t = catalog.getTable(id);
            ReadBuilder rb = t.newReadBuilder();
            List<Split> splits = rb.newScan().plan().splits();
            TableRead read = rb.newRead();
            List<String> lines = new ArrayList<>();
            for (Split s : splits) {
                Commands.readInto(read, s, t.rowType(), false, lines);
            }
            Commands.print(lines, true, out);
        }
    }

    /**
     * {@code catalog-op --catalog-option K=V... OP [ARGS]}, one line of output per name:
     * {@code list-databases}, {@code list-tables DB}, {@code create-database DB},
     * {@code drop-table DB.T}, {@code rename-table DB.A DB.B}, {@code drop-database DB}
     * (cascade).
     */
    static void op(Args a, PrintStream out) throws Exception {
        String op = a.positional(0);
        try (Catalog catalog = catalog(a)) {
            switch (op) {
                case "list-databases":
                    catalog.listDatabases().stream().sorted().forEach(out::println);
                    break;
                case "list-tables":
                    catalog.listTables(a.positional(1)).stream().sorted().forEach(out::println);
                    break;
                case "create-database":
                    catalog.createDatabase(a.positional(1), false);
                    break;
                case "drop-database":
                    catalog.dropDatabase(a.positional(1), false, true);
                    break;
                case "drop-table":
                    catalog.dropTable(Identifier.fromString(a.positional(1)), false);
                    break;
                case "rename-table":
                    catalog.renameTable(
                            Identifier.fromString(a.positional(1)),
                            Identifier.fromString(a.positional(2)),
                            false);
                    break;
                default:
                    throw new IllegalArgumentException("unknown catalog-op " + op);
            }
        }
    }

    /**
     * {@code catalog-meta --catalog-option K=V... DB.TABLE OP [NAME] [--max N]
     * [--snapshot N] [--retained D] [--from-tag T] [--pattern P]}: a table's partitions, tags
     * and branches through the catalog's own calls, one JSON line per answer:
     * {@code partitions} (every partition's statistics, by spec), {@code partitions-paged}
     * ({@code listPartitionsPaged} pages of N with pattern P: one line of specs per page),
     * {@code snapshots-paged} ({@code listSnapshotsPaged} pages of N: one line of ids per
     * page), {@code partitions-by-names} ({@code listPartitionsByNames} of {@code --specs
     * "k=v/k=v;..."}: as {@code partitions}),
     * {@code tags} ({@code listTagsPaged} pages of N: one line per page), {@code get-tag},
     * {@code create-tag}, {@code delete-tag}, {@code branches}, {@code create-branch},
     * {@code drop-branch}, {@code rename-branch N --to M}, {@code fast-forward}, {@code tables} ({@code listTablesPaged} pages
     * of N over the table's database: one line per page), {@code table-details} (the names
     * {@code listTableDetails} loads); {@code table-tags}, {@code table-tag N} and
     * {@code table-branches} ask the table's own tag and branch managers (what a catalog
     * without version management, such as the filesystem catalog, answers from);
     * {@code drop-partitions} and {@code mark-done} ({@code dropPartitions} /
     * {@code markDonePartitions} of {@code --specs}), {@code consumers}
     * ({@code listConsumersPaged} pages of N: one line of {consumerId, nextSnapshot} per page),
     * {@code reset-consumer ID [--snapshot N]} (without N: delete), {@code tables-globally}
     * ({@code listTablesPagedGlobally} pages of N with {@code --db-pattern} and
     * {@code --pattern}: one line of full names per page), {@code alter-database
     * [--set K=V]... [--remove K]...} (the table's database; prints its options after).
     */
    static void meta(Args a, PrintStream out) throws Exception {
        Identifier id = Identifier.fromString(a.positional(0));
        String op = a.positional(1);
        Integer max = a.get("--max") == null ? null : Integer.valueOf(a.get("--max"));
        try (Catalog catalog = catalog(a)) {
            switch (op) {
                case "partitions":
                    {
                        List<Map<String, Object>> rows = new ArrayList<>();
                        for (Partition p : catalog.listPartitions(id)) {
                            rows.add(partition(p));
                        }
                        rows.sort(Comparator.comparing(r -> r.get("spec").toString()));
                        for (Map<String, Object> r : rows) {
                            out.println(JsonSerdeUtil.toFlatJson(r));
                        }
                        break;
                    }
                case "partitions-paged":
                    pages(
                            token ->
                                    catalog.listPartitionsPaged(
                                            id, max, token, a.get("--pattern")),
                            p -> new TreeMap<>(p.spec()),
                            out);
                    break;
                case "snapshots-paged":
                    pages(token -> catalog.listSnapshotsPaged(id, max, token), sn -> sn.id(), out);
                    break;
                case "partitions-by-names":
                    {
                        List<Map<String, Object>> rows = new ArrayList<>();
                        for (Partition p : catalog.listPartitionsByNames(id, specs(a))) {
                            rows.add(partition(p));
                        }
                        rows.sort(Comparator.comparing(r -> r.get("spec").toString()));
                        for (Map<String, Object> r : rows) {
                            out.println(JsonSerdeUtil.toFlatJson(r));
                        }
                        break;
                    }
                case "tags":
                    pages(
                            token -> catalog.listTagsPaged(id, max, token, a.get("--pattern")),
                            t -> t,
                            out);
                    break;
                case "get-tag":
                    {
                        GetTagResponse t = catalog.getTag(id, a.positional(2));
                        Map<String, Object> r = new LinkedHashMap<>();
                        r.put("tagName", t.tagName());
                        r.put("snapshotId", t.snapshot().id());
                        r.put("tagTimeRetained", t.tagTimeRetained());
                        out.println(JsonSerdeUtil.toFlatJson(r));
                        break;
                    }
                case "create-tag":
                    catalog.createTag(
                            id,
                            a.positional(2),
                            a.get("--snapshot") == null ? null : Long.valueOf(a.get("--snapshot")),
                            a.get("--retained"),
                            false);
                    break;
                case "delete-tag":
                    catalog.deleteTag(id, a.positional(2));
                    break;
                case "branches":
                    {
                        List<String> b = new ArrayList<>(catalog.listBranches(id));
                        b.sort(Comparator.naturalOrder());
                        out.println(JsonSerdeUtil.toFlatJson(b));
                        break;
                    }
                case "create-branch":
                    catalog.createBranch(id, a.positional(2), a.get("--from-tag"));
                    break;
                case "drop-branch":
                    catalog.dropBranch(id, a.positional(2));
                    break;
                case "rename-branch":
                    catalog.renameBranch(id, a.positional(2), a.get("--to"));
                    break;
                case "fast-forward":
                    catalog.fastForward(id, a.positional(2));
                    break;
                case "tables":
                    pages(
                            token ->
                                    catalog.listTablesPaged(
                                            id.getDatabaseName(),
                                            max,
                                            token,
                                            a.get("--pattern"),
                                            null),
                            t -> t,
                            out);
                    break;
                case "table-tags":
                    {
                        List<String> names =
                                new ArrayList<>(
                                        ((DataTable) catalog.getTable(id))
                                                .tagManager()
                                                .allTagNames());
                        names.sort(Comparator.naturalOrder());
                        out.println(JsonSerdeUtil.toFlatJson(names));
                        break;
                    }
                case "table-tag":
                    {
                        String name = a.positional(2);
                        Tag t =
                                ((DataTable) catalog.getTable(id))
                                        .tagManager()
                                        .getOrThrow(name);
                        Map<String, Object> r = new LinkedHashMap<>();
                        r.put("tagName", name);
                        r.put("snapshotId", t.id());
                        r.put(
                                "tagTimeRetained",
                                t.getTagTimeRetained() == null
                                        ? null
                                        : t.getTagTimeRetained().toString());
                        out.println(JsonSerdeUtil.toFlatJson(r));
                        break;
                    }
                case "table-branches":
                    {
                        List<String> b =
                                new ArrayList<>(
                                        ((DataTable) catalog.getTable(id))
                                                .branchManager()
                                                .branches());
                        b.sort(Comparator.naturalOrder());
                        out.println(JsonSerdeUtil.toFlatJson(b));
                        break;
                    }
                case "table-details":
                    {
                        List<String> names = new ArrayList<>();
                        for (Table t : catalog.listTableDetails(id.getDatabaseName())) {
                            names.add(t.name());
                        }
                        names.sort(Comparator.naturalOrder());
                        out.println(JsonSerdeUtil.toFlatJson(names));
                        break;
                    }
                case "drop-partitions":
                    catalog.dropPartitions(id, specs(a));
                    break;
                case "mark-done":
                    catalog.markDonePartitions(id, specs(a));
                    break;
                case "consumers":
                    pages(
                            // 1.4.2's DelegateCatalog (the caching wrapper) does not forward
                            // the consumer calls: ask the catalog it wraps.
                            token ->
                                    DelegateCatalog.rootCatalog(catalog)
                                            .listConsumersPaged(id, max, token),
                            c -> {
                                Map<String, Object> r = new LinkedHashMap<>();
                                r.put("consumerId", c.getConsumerId());
                                r.put("nextSnapshot", c.getNextSnapshot());
                                return r;
                            },
                            out);
                    break;
                case "reset-consumer":
                    DelegateCatalog.rootCatalog(catalog)
                            .resetConsumer(
                                    id,
                                    a.positional(2),
                                    a.get("--snapshot") == null
                                            ? null
                                            : Long.valueOf(a.get("--snapshot")));
                    break;
                case "tables-globally":
                    pages(
                            token ->
                                    catalog.listTablesPagedGlobally(
                                            a.get("--db-pattern"), a.get("--pattern"), max, token),
                            Identifier::getFullName,
                            out);
                    break;
                case "alter-database":
                    {
                        List<PropertyChange> changes = new ArrayList<>();
                        for (String kv : a.getAll("--set")) {
                            int eq = kv.indexOf('=');
                            changes.add(
                                    PropertyChange.setProperty(
                                            kv.substring(0, eq), kv.substring(eq + 1)));
                        }
                        for (String k : a.getAll("--remove")) {
                            changes.add(PropertyChange.removeProperty(k));
                        }
                        catalog.alterDatabase(id.getDatabaseName(), changes, false);
                        out.println(
                                JsonSerdeUtil.toFlatJson(
                                        new TreeMap<>(
                                                catalog.getDatabase(id.getDatabaseName())
                                                        .options())));
                        break;
                    }
                default:
                    throw new IllegalArgumentException("unknown catalog-meta op " + op);
            }
        }
    }

    /** {@code --specs "k=v/k=v;k=v/k=v"}: partition specs, in that order. */
    private static List<Map<String, String>> specs(Args a) {
        List<Map<String, String>> specs = new ArrayList<>();
        for (String spec : a.get("--specs").split(";")) {
            Map<String, String> m = new LinkedHashMap<>();
            for (String kv : spec.split("/")) {
                int eq = kv.indexOf('=');
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            specs.add(m);
        }
        return specs;
    }

    private static Map<String, Object> partition(Partition p) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("spec", new TreeMap<>(p.spec()));
        r.put("recordCount", p.recordCount());
        r.put("fileSizeInBytes", p.fileSizeInBytes());
        r.put("fileCount", p.fileCount());
        r.put("lastFileCreationTime", p.lastFileCreationTime());
        r.put("totalBuckets", p.totalBuckets());
        r.put("done", p.done());
        return r;
    }

    /** A paged catalog call from a page token. */
    private interface PageCall<T> {
        PagedList<T> apply(String token) throws Exception;
    }

    /** Follows the pages of a paged call, one JSON line of (mapped) elements per page. */
    private static <T> void pages(PageCall<T> call, Function<T, Object> show, PrintStream out)
            throws Exception {
        String token = null;
        for (int i = 0; i < 10_000; i++) {
            PagedList<T> page = call.apply(token);
            List<Object> shown = new ArrayList<>();
            for (T t : page.getElements()) {
                shown.add(show.apply(t));
            }
            out.println(JsonSerdeUtil.toFlatJson(shown));
            token = page.getNextPageToken();
            if (token == null || token.isEmpty()) {
                return;
            }
        }
        throw new IllegalStateException("more than 10000 pages");
    }
}
