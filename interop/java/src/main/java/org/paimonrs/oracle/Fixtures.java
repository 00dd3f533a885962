package org.paimonrs.oracle;

import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code write-fixtures OUT_WAREHOUSE}: the reference tables, in a catalog warehouse.
 *
 * <p>Everything is a function of fixed literals and fixed seeds, so regenerating gives the same
 * rows (file names and commit times differ). A table whose feature Java 1.4.2 refuses is dropped
 * and reported as "SKIP db.table: reason" on stderr.
 */
final class Fixtures {

    interface TableWriter {
        void write(Fx fx) throws Exception;
    }

    private Fixtures() {}

    static void writeAll(String warehouse) throws Exception {
        try (Fx fx = new Fx(warehouse)) {
            List<Object[]> all = new ArrayList<>();
            FixturesAppend.register(all);
            FixturesDv.register(all);
            FixturesPk.register(all);
            FixturesEvolution.register(all);
            FixturesBlob.register(all);
            FixturesVariant.register(all);
            String only = System.getenv("ORACLE_ONLY");
            for (Object[] e : all) {
                String name = (String) e[0];
                if (only != null && !name.matches(only)) {
                    continue;
                }
                TableWriter w = (TableWriter) e[1];
                long t0 = System.nanoTime();
                try {
                    w.write(fx);
                    System.err.printf(
                            "wrote %s in %d ms%n", name, (System.nanoTime() - t0) / 1_000_000);
                } catch (Throwable t) {
                    Throwable root = t;
                    while (root.getCause() != null) {
                        root = root.getCause();
                    }
                    fx.skip(name, root.getClass().getSimpleName() + ": " + root.getMessage());
                    if (System.getenv("ORACLE_DEBUG") != null) {
                        t.printStackTrace();
                    }
                    try {
                        fx.catalog.dropTable(Identifier.fromString(name), true);
                    } catch (Exception ignored) {
                        // best effort: leave no half-written table behind
                    }
                }
            }
            for (String r : fx.refused) {
                System.err.println("REFUSED " + r);
            }
            System.err.println(fx.skipped.size() + " skipped, " + fx.refused.size()
                    + " type changes refused");
        }
    }

    // ---------------------------------------------------------------- shared data

    /** The "basic" columns used by format / compression / layout tables. */
    static org.apache.paimon.schema.Schema.Builder basicSchema() {
        return Fx.schema()
                .column("id", DataTypes.INT())
                .column("name", DataTypes.STRING())
                .column("price", DataTypes.DOUBLE())
                .column("amount", DataTypes.DECIMAL(12, 2))
                .column("dt", DataTypes.DATE())
                .column("ts", DataTypes.TIMESTAMP(6))
                .column("flag", DataTypes.BOOLEAN())
                .column("tags", DataTypes.ARRAY(DataTypes.STRING()));
    }

    /** Deterministic basic rows with ids [from, from + n). */
    static List<GenericRow> basicRows(RowType type, int from, int n) {
        List<GenericRow> rows = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            String name = i % 7 == 3 ? null : (i % 11 == 5 ? "" : "name-" + i);
            Double price = i % 13 == 4 ? null : i * 1.5 - 20;
            BigDecimal amount = BigDecimal.valueOf(i * 1234L - 5000, 2);
            String dt = LocalDate.of(2024, 1, 1).plusDays(i % 40).toString();
            String ts =
                    LocalDateTime.of(2024, 1, 1, 0, 0)
                            .plusSeconds(i * 3671L)
                            .plusNanos(i * 1000L)
                            .toString();
            Boolean flag = i % 5 == 0 ? null : i % 2 == 0;
            List<Object> tags = i % 6 == 0 ? null : Fx.L();
            if (tags != null) {
                for (int k = 0; k < i % 4; k++) {
                    tags.add(k == 1 ? null : "t" + (i + k));
                }
            }
            rows.add(Fx.row(type, i, name, price, amount, dt, ts, flag, tags));
        }
        return rows;
    }
}
