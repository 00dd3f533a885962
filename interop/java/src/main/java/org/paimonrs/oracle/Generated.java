package org.paimonrs.oracle;

import org.apache.paimon.data.GenericRow;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypeRoot;
import org.apache.paimon.types.RowType;

import java.util.Random;

/** Rows for an arbitrary schema from a seeded Random (commit-loop, planning table). */
final class Generated {

    private Generated() {}

    /** Key-like columns (the first column, and INT/BIGINT named id) take {@code key}. */
    static GenericRow row(RowType rt, long key, Random rnd) {
        Object[] v = new Object[rt.getFieldCount()];
        for (int k = 0; k < v.length; k++) {
            DataType t = rt.getTypeAt(k);
            String name = rt.getFields().get(k).name();
            boolean keyCol = k == 0 || name.equals("id");
            if (keyCol && isIntegral(t.getTypeRoot())) {
                v[k] = key;
            } else {
                v[k] = value(t, rnd);
            }
        }
        return Fx.row(rt, v);
    }

    private static boolean isIntegral(DataTypeRoot r) {
        return r == DataTypeRoot.TINYINT || r == DataTypeRoot.SMALLINT
                || r == DataTypeRoot.INTEGER || r == DataTypeRoot.BIGINT;
    }

    static Object value(DataType t, Random rnd) {
        if (t.isNullable() && rnd.nextInt(10) == 0) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return rnd.nextBoolean();
            case TINYINT:
            case SMALLINT:
            case INTEGER:
                return rnd.nextInt(100);
            case BIGINT:
                return rnd.nextLong();
            case FLOAT:
            case DOUBLE:
                return rnd.nextDouble();
            case CHAR:
            case VARCHAR:
                return "s" + rnd.nextInt(100000);
            case DATE:
                return java.time.LocalDate.ofEpochDay(19000 + rnd.nextInt(1000)).toString();
            case ARRAY:
                {
                    java.util.List<Object> l = new java.util.ArrayList<>();
                    int n = rnd.nextInt(3);
                    for (int i = 0; i < n; i++) {
                        l.add(value(((org.apache.paimon.types.ArrayType) t).getElementType(), rnd));
                    }
                    return l;
                }
            case MAP:
                {
                    org.apache.paimon.types.MapType mt = (org.apache.paimon.types.MapType) t;
                    java.util.Map<Object, Object> m = new java.util.LinkedHashMap<>();
                    int n = rnd.nextInt(3);
                    for (int i = 0; i < n; i++) {
                        Object k = value(mt.getKeyType().copy(false), rnd);
                        m.put(k, value(mt.getValueType(), rnd));
                    }
                    return m;
                }
            case ROW:
                {
                    java.util.List<Object> l = new java.util.ArrayList<>();
                    for (DataType ft : ((RowType) t).getFieldTypes()) {
                        l.add(value(ft, rnd));
                    }
                    return l;
                }
            default:
                return TypeValues.sourceValue(t, null, rnd.nextInt(3));
        }
    }
}
