package org.paimonrs.oracle;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.variant.GenericVariant;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.DataTypes;

import java.util.ArrayList;
import java.util.List;

/** VARIANT columns written by Java's Parquet writer, shredded by {@code variant.shreddingSchema}
 * (set as {@code parquet.variant.shreddingSchema}). */
final class FixturesVariant {

    private FixturesVariant() {}

    static void register(List<Object[]> all) {
        FixturesAppend.reg(all, "append.variant_shredded", FixturesVariant::shredded);
    }

    /** The values of {@code append.variant_shredded}, as JSON, in id order (null: SQL NULL). */
    static final String[] SHREDDED_VALUES = {
        "{\"a\":1,\"b\":\"x\"}",
        "{\"a\":2,\"b\":\"y\",\"c\":true}",
        "{\"a\":\"three\",\"b\":\"z\"}",
        "{\"b\":\"only b\",\"d\":[1,2]}",
        "[1,\"two\"]",
        "42",
        null,
    };

    /**
     * One Parquet file of (id INT, v VARIANT), v shredded as ROW(a INT, b STRING): rows whose
     * fields match the schema land in typed_value, the rest (a string a, extra fields c and d,
     * an array, a number) in value, with a SQL NULL last.
     */
    private static void shredded(Fx fx) throws Exception {
        String shredding = "{\"type\":\"ROW\",\"fields\":[{\"id\":0,\"name\":\"v\",\"type\":"
                + "{\"type\":\"ROW\",\"fields\":[{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},"
                + "{\"id\":1,\"name\":\"b\",\"type\":\"STRING\"}]}}]}";
        FileStoreTable t = fx.create("append", "variant_shredded", Fx.schema()
                .column("id", DataTypes.INT())
                .column("v", DataTypes.VARIANT())
                .option("bucket", "-1")
                .option("file.format", "parquet")
                // The Parquet format reads its options with the "parquet." prefix removed.
                .option("parquet.variant.shreddingSchema", shredding)
                .build());
        List<GenericRow> rows = new ArrayList<>();
        for (int i = 0; i < SHREDDED_VALUES.length; i++) {
            String v = SHREDDED_VALUES[i];
            rows.add(GenericRow.of(i, v == null ? null : GenericVariant.fromJson(v)));
        }
        Fx.commit(t, rows);
    }
}
