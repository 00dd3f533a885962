package org.paimonrs.oracle;

import org.apache.paimon.data.InternalRow;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.table.system.SystemTableLoader;

import java.io.PrintStream;

/**
 * {@code system-table TABLE NAME... [--branch B]}: the rows of Java's own system tables {@code
 * TABLE$NAME} (loaded by {@link SystemTableLoader}, as a catalog does for {@code db.t$NAME}),
 * one JSON line each in Java's read order; with several names each line starts with the name
 * and a tab.
 */
final class SystemTables {

    private SystemTables() {}

    static void print(Args a, PrintStream out) throws Exception {
        FileStoreTable table = Commands.open(a.positional(0));
        if (a.has("--branch")) {
            table = table.switchToBranch(a.get("--branch"));
        }
        int names = a.positional.size() - 1;
        if (names < 1) {
            throw new IllegalArgumentException("system-table wants TABLE_PATH NAME...");
        }
        for (int i = 1; i <= names; i++) {
            String name = a.positional(i);
            String prefix = names > 1 ? name + "\t" : "";
            print(table, name, prefix, out);
        }
    }

    private static void print(FileStoreTable table, String name, String prefix, PrintStream out)
            throws Exception {
        Table system = SystemTableLoader.load(name, table);
        if (system == null) {
            throw new IllegalArgumentException("no system table " + name);
        }
        ReadBuilder rb = system.newReadBuilder();
        TableRead read = rb.newRead();
        for (Split split : rb.newScan().plan().splits()) {
            try (RecordReader<InternalRow> reader = read.createReader(split)) {
                reader.forEachRemaining(
                        row -> out.println(prefix + RowJson.encode(row, system.rowType())));
            }
        }
    }
}
