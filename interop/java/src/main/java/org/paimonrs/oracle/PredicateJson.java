package org.paimonrs.oracle;

import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.JsonSerdeUtil;

import java.io.PrintStream;

/**
 * {@code predicate-json TABLE --filter EXPR}: Java's Jackson form of a filter over the table's
 * row type ({@code JsonSerdeUtil.toFlatJson(predicate)}), one line, then whether Java reads that JSON
 * back: {@code read-back: ok} or {@code read-back: error ...}.
 */
final class PredicateJson {

    private PredicateJson() {}

    static void print(Args a, PrintStream out) {
        FileStoreTable table = Commands.open(a.positional(0));
        if (!a.has("--filter")) {
            throw new IllegalArgumentException("predicate-json needs --filter EXPR");
        }
        Predicate p = FilterParser.parse(table.rowType(), a.get("--filter")).predicate;
        String json = JsonSerdeUtil.toFlatJson(p);
        out.println(json);
        try {
            Predicate back = JsonSerdeUtil.fromJson(json, Predicate.class);
            out.println(back.equals(p) ? "read-back: ok" : "read-back: differs " + back);
        } catch (RuntimeException e) {
            out.println("read-back: error " + e.getClass().getSimpleName());
        }
    }
}
