package org.paimonrs.oracle;

import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimeType;
import org.apache.paimon.types.TimestampType;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * The row encoding shared by the oracle and {@code paimon read --format jsonl} (issue 3).
 *
 * <p>One JSON object per row, keys in column order. The rules per type are listed in
 * interop/java/README.md; this class is their only implementation on the Java side.
 */
public final class RowJson {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private RowJson() {}

    /** Encodes a whole row as one JSON object (no trailing newline). */
    public static String encode(InternalRow row, RowType type) {
        StringBuilder sb = new StringBuilder(128);
        appendRow(sb, row, type.getFields());
        return sb.toString();
    }

    /** Encodes a row with an extra leading {@code "_ROW_KIND"} key ("+I", "-U", "+U", "-D"). */
    public static String encodeWithKind(InternalRow row, RowType type) {
        StringBuilder sb = new StringBuilder(128);
        sb.append("{\"_ROW_KIND\":\"").append(row.getRowKind().shortString()).append('"');
        List<DataField> fields = type.getFields();
        for (int i = 0; i < fields.size(); i++) {
            sb.append(',');
            appendString(sb, fields.get(i).name());
            sb.append(':');
            appendField(sb, row, i, fields.get(i).type());
        }
        sb.append('}');
        return sb.toString();
    }

    static void appendRow(StringBuilder sb, InternalRow row, List<DataField> fields) {
        sb.append('{');
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            appendString(sb, fields.get(i).name());
            sb.append(':');
            appendField(sb, row, i, fields.get(i).type());
        }
        sb.append('}');
    }

    static void appendField(StringBuilder sb, DataGetters row, int pos, DataType type) {
        if (row.isNullAt(pos)) {
            sb.append("null");
            return;
        }
        switch (type.getTypeRoot()) {
            case BOOLEAN:
                sb.append(row.getBoolean(pos));
                break;
            case TINYINT:
                sb.append(row.getByte(pos));
                break;
            case SMALLINT:
                sb.append(row.getShort(pos));
                break;
            case INTEGER:
                sb.append(row.getInt(pos));
                break;
            case BIGINT:
                sb.append(row.getLong(pos));
                break;
            case FLOAT:
                appendFloat(sb, row.getFloat(pos));
                break;
            case DOUBLE:
                appendDouble(sb, row.getDouble(pos));
                break;
            case DECIMAL:
                {
                    DecimalType dt = (DecimalType) type;
                    appendDecimal(sb, row.getDecimal(pos, dt.getPrecision(), dt.getScale()), dt);
                    break;
                }
            case CHAR:
            case VARCHAR:
                appendString(sb, row.getString(pos).toString());
                break;
            case BINARY:
            case VARBINARY:
                appendHex(sb, row.getBinary(pos));
                break;
            case DATE:
                appendDate(sb, row.getInt(pos));
                break;
            case TIME_WITHOUT_TIME_ZONE:
                appendTime(sb, row.getInt(pos), ((TimeType) type).getPrecision());
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                {
                    int p = ((TimestampType) type).getPrecision();
                    appendTimestamp(sb, row.getTimestamp(pos, p), p, false);
                    break;
                }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    int p = ((LocalZonedTimestampType) type).getPrecision();
                    appendTimestamp(sb, row.getTimestamp(pos, p), p, true);
                    break;
                }
            case ARRAY:
                appendArray(sb, row.getArray(pos), ((ArrayType) type).getElementType());
                break;
            case VECTOR:
                appendArray(
                        sb,
                        row.getVector(pos),
                        ((org.apache.paimon.types.VectorType) type).getElementType());
                break;
            case MAP:
                {
                    MapType mt = (MapType) type;
                    appendMap(sb, row.getMap(pos), mt.getKeyType(), mt.getValueType());
                    break;
                }
            case MULTISET:
                appendMap(
                        sb,
                        row.getMap(pos),
                        ((MultisetType) type).getElementType(),
                        new org.apache.paimon.types.IntType(false));
                break;
            case ROW:
                {
                    RowType rt = (RowType) type;
                    appendRow(sb, row.getRow(pos, rt.getFieldCount()), rt.getFields());
                    break;
                }
            case VARIANT:
                appendString(sb, row.getVariant(pos).toJson(ZoneOffset.UTC));
                break;
            case BLOB:
                appendHex(sb, row.getBlob(pos).toData());
                break;
            default:
                throw new UnsupportedOperationException("row encoding: unsupported type " + type);
        }
    }

    static void appendArray(StringBuilder sb, InternalArray array, DataType elementType) {
        sb.append('[');
        for (int i = 0; i < array.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            appendField(sb, array, i, elementType);
        }
        sb.append(']');
    }

    static void appendMap(StringBuilder sb, InternalMap map, DataType keyType, DataType valueType) {
        InternalArray keys = map.keyArray();
        InternalArray values = map.valueArray();
        sb.append('[');
        for (int i = 0; i < map.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append('[');
            appendField(sb, keys, i, keyType);
            sb.append(',');
            appendField(sb, values, i, valueType);
            sb.append(']');
        }
        sb.append(']');
    }

    static void appendFloat(StringBuilder sb, float f) {
        if (Float.isNaN(f)) {
            sb.append("\"NaN\"");
        } else if (Float.isInfinite(f)) {
            sb.append(f > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        } else {
            sb.append(Float.toString(f));
        }
    }

    static void appendDouble(StringBuilder sb, double d) {
        if (Double.isNaN(d)) {
            sb.append("\"NaN\"");
        } else if (Double.isInfinite(d)) {
            sb.append(d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        } else {
            sb.append(Double.toString(d));
        }
    }

    static void appendDecimal(StringBuilder sb, Decimal d, DecimalType type) {
        if (d == null) {
            // A cast that overflows the target precision yields null while isNullAt is false.
            sb.append("null");
            return;
        }
        sb.append('"')
                .append(d.toBigDecimal().setScale(type.getScale()).toPlainString())
                .append('"');
    }

    static void appendDate(StringBuilder sb, int epochDay) {
        LocalDate date = LocalDate.ofEpochDay(epochDay);
        sb.append('"');
        appendYmd(sb, date.getYear(), date.getMonthValue(), date.getDayOfMonth());
        sb.append('"');
    }

    static void appendTime(StringBuilder sb, int millisOfDay, int precision) {
        int h = millisOfDay / 3_600_000;
        int m = (millisOfDay / 60_000) % 60;
        int s = (millisOfDay / 1000) % 60;
        int ms = millisOfDay % 1000;
        sb.append('"');
        pad(sb, h, 2).append(':');
        pad(sb, m, 2).append(':');
        pad(sb, s, 2);
        int digits = Math.min(precision, 3);
        if (digits > 0) {
            sb.append('.');
            String f = String.format("%03d", ms);
            sb.append(f, 0, digits);
        }
        sb.append('"');
    }

    static void appendTimestamp(StringBuilder sb, Timestamp ts, int precision, boolean utcZ) {
        LocalDateTime t =
                utcZ
                        ? LocalDateTime.ofInstant(ts.toInstant(), ZoneOffset.UTC)
                        : ts.toLocalDateTime();
        sb.append('"');
        appendYmd(sb, t.getYear(), t.getMonthValue(), t.getDayOfMonth());
        sb.append('T');
        pad(sb, t.getHour(), 2).append(':');
        pad(sb, t.getMinute(), 2).append(':');
        pad(sb, t.getSecond(), 2);
        if (precision > 0) {
            sb.append('.');
            String nanos = String.format("%09d", t.getNano());
            sb.append(nanos, 0, Math.min(precision, 9));
        }
        if (utcZ) {
            sb.append('Z');
        }
        sb.append('"');
    }

    private static void appendYmd(StringBuilder sb, int y, int mo, int d) {
        if (y < 0) {
            sb.append('-');
            pad(sb, -y, 4);
        } else {
            pad(sb, y, 4);
        }
        sb.append('-');
        pad(sb, mo, 2).append('-');
        pad(sb, d, 2);
    }

    private static StringBuilder pad(StringBuilder sb, int v, int width) {
        String s = Integer.toString(v);
        for (int i = s.length(); i < width; i++) {
            sb.append('0');
        }
        return sb.append(s);
    }

    static void appendHex(StringBuilder sb, byte[] bytes) {
        sb.append('"');
        for (byte b : bytes) {
            sb.append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
        }
        sb.append('"');
    }

    /**
     * JSON string: escapes quote, backslash and control characters below U+0020 (short forms for
     * \b \f \n \r \t, else {@code \}{@code u00XX}); everything else, including characters outside
     * the BMP, is written as raw UTF-8.
     */
    static void appendString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\b':
                    sb.append("\\b");
                    break;
                case '\f':
                    sb.append("\\f");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder();
        appendString(sb, s);
        return sb.toString();
    }
}
