package org.paimonrs.oracle;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.predicate.Predicate;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A small SQL-ish predicate grammar translated to Paimon's {@link PredicateBuilder}.
 *
 * <pre>
 * expr    := and ( OR and )*
 * and     := unary ( AND unary )*
 * unary   := NOT unary | '(' expr ')' | cmp
 * cmp     := col ( '=' | '<>' | '!=' | '<' | '<=' | '>' | '>=' ) lit
 *          | col IS [NOT] NULL
 *          | col [NOT] IN '(' lit ( ',' lit )* ')'
 *          | col BETWEEN lit AND lit
 * col     := identifier | `quoted` | "quoted"
 * lit     := number | 'string' | TRUE | FALSE | NULL      ('' escapes a quote)
 * </pre>
 *
 * A literal is converted to the column's type: numbers for numeric columns, strings for
 * CHAR/VARCHAR, {@code 'YYYY-MM-DD'} for DATE, {@code 'YYYY-MM-DD[T| ]HH:MM:SS[.f]'} for
 * TIMESTAMP (a trailing Z for TIMESTAMP_LTZ is optional), {@code 'HH:MM:SS[.fff]'} for TIME,
 * lowercase hex for BINARY.
 */
public final class FilterParser {

    private final RowType rowType;
    private final PredicateBuilder builder;
    private final List<String> tokens;
    private final Set<String> columns = new LinkedHashSet<>();
    private int pos;

    private FilterParser(RowType rowType, String text) {
        this.rowType = rowType;
        this.builder = new PredicateBuilder(rowType);
        this.tokens = tokenize(text);
    }

    /** Parses {@code text} against {@code rowType}; returns the predicate and referenced columns. */
    public static Parsed parse(RowType rowType, String text) {
        FilterParser p = new FilterParser(rowType, text);
        Predicate pred = p.expr();
        if (p.pos != p.tokens.size()) {
            throw new IllegalArgumentException(
                    "filter: unexpected token '" + p.tokens.get(p.pos) + "' in: " + text);
        }
        return new Parsed(pred, new ArrayList<>(p.columns));
    }

    /** A parsed filter. */
    public static final class Parsed {
        public final Predicate predicate;
        public final List<String> columns;

        Parsed(Predicate predicate, List<String> columns) {
            this.predicate = predicate;
            this.columns = columns;
        }
    }

    private Predicate expr() {
        List<Predicate> parts = new ArrayList<>();
        parts.add(and());
        while (acceptKeyword("OR")) {
            parts.add(and());
        }
        return parts.size() == 1 ? parts.get(0) : PredicateBuilder.or(parts);
    }

    private Predicate and() {
        List<Predicate> parts = new ArrayList<>();
        parts.add(unary());
        while (acceptKeyword("AND")) {
            parts.add(unary());
        }
        return parts.size() == 1 ? parts.get(0) : PredicateBuilder.and(parts);
    }

    private Predicate unary() {
        if (acceptKeyword("NOT")) {
            Predicate inner = unary();
            return inner.negate()
                    .orElseThrow(
                            () -> new IllegalArgumentException("filter: cannot negate " + inner));
        }
        if (accept("(")) {
            Predicate p = expr();
            expect(")");
            return p;
        }
        return comparison();
    }

    private Predicate comparison() {
        String col = identifier();
        int idx = builder.indexOf(col);
        if (idx < 0) {
            throw new IllegalArgumentException("filter: unknown column " + col);
        }
        columns.add(rowType.getFields().get(idx).name());
        DataType type = rowType.getTypeAt(idx);
        if (acceptKeyword("IS")) {
            boolean not = acceptKeyword("NOT");
            expectKeyword("NULL");
            return not ? builder.isNotNull(idx) : builder.isNull(idx);
        }
        boolean not = acceptKeyword("NOT");
        if (acceptKeyword("IN")) {
            expect("(");
            List<Object> values = new ArrayList<>();
            do {
                values.add(literal(type));
            } while (accept(","));
            expect(")");
            return not ? builder.notIn(idx, values) : builder.in(idx, values);
        }
        if (not) {
            throw new IllegalArgumentException("filter: NOT must be followed by IN here");
        }
        if (acceptKeyword("BETWEEN")) {
            Object lo = literal(type);
            expectKeyword("AND");
            Object hi = literal(type);
            return builder.between(idx, lo, hi);
        }
        String op = next();
        Object v = literal(type);
        switch (op) {
            case "=":
                return builder.equal(idx, v);
            case "<>":
            case "!=":
                return builder.notEqual(idx, v);
            case "<":
                return builder.lessThan(idx, v);
            case "<=":
                return builder.lessOrEqual(idx, v);
            case ">":
                return builder.greaterThan(idx, v);
            case ">=":
                return builder.greaterOrEqual(idx, v);
            default:
                throw new IllegalArgumentException("filter: unknown operator " + op);
        }
    }

    private String identifier() {
        String t = next();
        if ((t.startsWith("`") && t.endsWith("`")) || (t.startsWith("\"") && t.endsWith("\""))) {
            return t.substring(1, t.length() - 1);
        }
        return t;
    }

    private Object literal(DataType type) {
        String t = next();
        if (t.equalsIgnoreCase("NULL")) {
            return null;
        }
        String text;
        if (t.startsWith("'")) {
            text = t.substring(1, t.length() - 1).replace("''", "'");
        } else {
            text = t;
        }
        return convert(type, text);
    }

    /** Converts literal text to Paimon's internal representation for {@code type}. */
    static Object convert(DataType type, String text) {
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                return Boolean.parseBoolean(text);
            case TINYINT:
                return Byte.parseByte(text);
            case SMALLINT:
                return Short.parseShort(text);
            case INTEGER:
                return Integer.parseInt(text);
            case BIGINT:
                return Long.parseLong(text);
            case FLOAT:
                return Float.parseFloat(text);
            case DOUBLE:
                return Double.parseDouble(text);
            case DECIMAL:
                {
                    DecimalType dt = (DecimalType) type;
                    return Decimal.fromBigDecimal(
                            new BigDecimal(text), dt.getPrecision(), dt.getScale());
                }
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString(text);
            case BINARY:
            case VARBINARY:
                return hex(text);
            case DATE:
                return (int) LocalDate.parse(text).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return (int) (LocalTime.parse(text).toNanoOfDay() / 1_000_000);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return Timestamp.fromLocalDateTime(LocalDateTime.parse(text.replace(' ', 'T')));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    String s = text.replace(' ', 'T');
                    if (!s.endsWith("Z")) {
                        s = s + "Z";
                    }
                    return Timestamp.fromInstant(Instant.parse(s));
                }
            default:
                throw new IllegalArgumentException("filter: no literals for type " + type);
        }
    }

    private static byte[] hex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    // ---- tokens ----

    private boolean accept(String t) {
        if (pos < tokens.size() && tokens.get(pos).equals(t)) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean acceptKeyword(String k) {
        if (pos < tokens.size() && tokens.get(pos).equalsIgnoreCase(k)) {
            pos++;
            return true;
        }
        return false;
    }

    private void expect(String t) {
        if (!accept(t)) {
            throw new IllegalArgumentException("filter: expected '" + t + "' at token " + pos);
        }
    }

    private void expectKeyword(String k) {
        if (!acceptKeyword(k)) {
            throw new IllegalArgumentException("filter: expected " + k + " at token " + pos);
        }
    }

    private String next() {
        if (pos >= tokens.size()) {
            throw new IllegalArgumentException("filter: unexpected end of expression");
        }
        return tokens.get(pos++);
    }

    private static List<String> tokenize(String s) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '\'') {
                int j = i + 1;
                while (true) {
                    if (j >= s.length()) {
                        throw new IllegalArgumentException("filter: unterminated string");
                    }
                    if (s.charAt(j) == '\'') {
                        if (j + 1 < s.length() && s.charAt(j + 1) == '\'') {
                            j += 2;
                            continue;
                        }
                        break;
                    }
                    j++;
                }
                out.add(s.substring(i, j + 1));
                i = j + 1;
            } else if (c == '`' || c == '"') {
                int j = s.indexOf(c, i + 1);
                if (j < 0) {
                    throw new IllegalArgumentException("filter: unterminated identifier");
                }
                out.add(s.substring(i, j + 1));
                i = j + 1;
            } else if (c == '(' || c == ')' || c == ',') {
                out.add(String.valueOf(c));
                i++;
            } else if (c == '<' || c == '>' || c == '=' || c == '!') {
                int j = i + 1;
                if (j < s.length() && (s.charAt(j) == '=' || (c == '<' && s.charAt(j) == '>'))) {
                    j++;
                }
                out.add(s.substring(i, j));
                i = j;
            } else {
                int j = i;
                while (j < s.length()
                        && !Character.isWhitespace(s.charAt(j))
                        && "()<>=!,'".indexOf(s.charAt(j)) < 0) {
                    j++;
                }
                out.add(s.substring(i, j));
                i = j;
            }
        }
        return out;
    }
}
