package org.paimonrs.oracle;

import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.DecimalType;

import java.nio.charset.StandardCharsets;

/** Deterministic sample values per type, in the Java forms {@link Fx#conv} accepts. */
final class TypeValues {

    private TypeValues() {}

    /** A value for column {@code name} of {@code type} in row {@code id} (never null for id%7!=6). */
    static Object forField(String name, DataType type, int id) {
        if (id % 7 == 6) {
            return null;
        }
        switch (type.getTypeRoot()) {
            case INTEGER:
                return id * 10 + name.length();
            case BIGINT:
                return id * 1000L + name.hashCode() % 100;
            case DOUBLE:
                return id * 0.25;
            case CHAR:
            case VARCHAR:
                return name + "-" + id;
            default:
                return sourceValue(type, null, id % 3);
        }
    }

    /**
     * Row {@code i} (0..3; 3 is always null) of a column of type {@code src}. When {@code target}
     * is given the value is chosen so a cast to it is meaningful (e.g. numeric strings before a
     * string -> int change); otherwise it is a natural value of {@code src}, including its
     * extremes.
     */
    static Object sourceValue(DataType src, DataType target, int i) {
        if (i == 3) {
            return src.isNullable() ? null : 0;
        }
        DataTypeRoot t = target == null ? null : target.getTypeRoot();
        switch (src.getTypeRoot()) {
            case TINYINT:
                return new byte[] {12, -7, Byte.MAX_VALUE}[i];
            case SMALLINT:
                return new short[] {12, -7, 300}[i];
            case INTEGER:
                return new int[] {12, -7, 70000}[i];
            case BIGINT:
                return new long[] {12, -7, 5_000_000_000L}[i];
            case FLOAT:
                return new float[] {12.75f, -7.5f, 300.9f}[i];
            case DOUBLE:
                return new double[] {12.75, -7.5, 3.0e10}[i];
            case BOOLEAN:
                return new boolean[] {true, false, true}[i];
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) src;
                    java.math.BigDecimal[] v = {
                        new java.math.BigDecimal("12.3456"),
                        new java.math.BigDecimal("-7.0050"),
                        java.math.BigDecimal.TEN.pow(Math.min(d.getPrecision() - d.getScale(), 5))
                                .subtract(java.math.BigDecimal.ONE.movePointLeft(d.getScale()))
                    };
                    return v[i].setScale(d.getScale(), java.math.RoundingMode.HALF_UP);
                }
            case CHAR:
            case VARCHAR:
                return stringFor(t, i, src);
            case BINARY:
            case VARBINARY:
                {
                    String[] v = {"abcd", "", "😀"};
                    byte[] b = v[i].getBytes(StandardCharsets.UTF_8);
                    if (src.getTypeRoot() == DataTypeRoot.BINARY) {
                        return new byte[] {1, 2, 3, (byte) i};
                    }
                    return b;
                }
            case DATE:
                return new String[] {"2024-02-29", "1970-01-01", "1969-12-31"}[i];
            case TIME_WITHOUT_TIME_ZONE:
                return new String[] {"12:34:56.789", "00:00:00", "23:59:59.999"}[i];
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return new String[] {
                    "2024-02-29T12:34:56.123456789", "1970-01-01T00:00:00", "1969-12-31T23:59:59.999999"
                }[i];
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return new String[] {
                    "2024-02-29T12:34:56.123456Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999Z"
                }[i];
            default:
                throw new IllegalArgumentException("no sample values for " + src);
        }
    }

    private static String stringFor(DataTypeRoot target, int i, DataType src) {
        String[] v;
        if (target == null) {
            v = new String[] {"hello", "", "😀 ünï"};
        } else {
            switch (target) {
                case TINYINT:
                case SMALLINT:
                case INTEGER:
                case BIGINT:
                    v = new String[] {"12", "-7", "100"};
                    break;
                case FLOAT:
                case DOUBLE:
                    v = new String[] {"1.5", "-2.25", "1e10"};
                    break;
                case DECIMAL:
                    v = new String[] {"123.45", "-0.5", "99999999.99"};
                    break;
                case BOOLEAN:
                    v = new String[] {"true", "false", "TRUE"};
                    break;
                case DATE:
                    v = new String[] {"2024-02-29", "1970-01-01", "0001-01-01"};
                    break;
                case TIMESTAMP_WITHOUT_TIME_ZONE:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                    v = new String[] {"2024-02-29 12:34:56.123456", "1970-01-01 00:00:00", "2024-01-01"};
                    break;
                default:
                    v = new String[] {"abc", "", "😀"};
            }
        }
        String s = v[i];
        if (src.getTypeRoot() == DataTypeRoot.CHAR || src.getTypeRoot() == DataTypeRoot.VARCHAR) {
            int len = src.getTypeRoot() == DataTypeRoot.CHAR
                    ? ((org.apache.paimon.types.CharType) src).getLength()
                    : ((org.apache.paimon.types.VarCharType) src).getLength();
            if (s.length() > len) {
                s = s.substring(0, len);
            }
        }
        return s;
    }
}
