package org.paimonrs.oracle;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
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

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

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
     * {@code catalog-write --catalog-option K=V... DB.TABLE --from A --to B [--commits N]}:
     * creates the database and the table {@code (id INT, v STRING)} if missing, then writes
     * rows (id, 'java-<id>') for id in [A, B) in N batch commits (default 1) of consecutive ids.
     */
    static void write(Args a, PrintStream out) throws Exception {
        Identifier id = Identifier.fromString(a.positional(0));
        long from = a.getLong("--from", 0);
        long to = a.getLong("--to", 0);
        long commits = Math.max(1, a.getLong("--commits", 1));
        try (Catalog catalog = catalog(a)) {
            catalog.createDatabase(id.getDatabaseName(), true);
            Schema schema =
                    Schema.newBuilder()
                            .column("id", DataTypes.INT())
                            .column("v", DataTypes.STRING())
                            .build();
            catalog.createTable(id, schema, true);
            Table t = catalog.getTable(id);
            long per = Math.max(1, (to - from + commits - 1) / commits);
            for (long start = from; start < to; start += per) {
                BatchWriteBuilder wb = t.newBatchWriteBuilder();
                try (BatchTableWrite w = wb.newWrite();
                        BatchTableCommit c = wb.newCommit()) {
                    for (long i = start; i < Math.min(to, start + per); i++) {
                        w.write(GenericRow.of((int) i, BinaryString.fromString("java-" + i)));
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
}
