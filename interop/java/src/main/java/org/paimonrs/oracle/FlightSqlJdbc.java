package org.paimonrs.oracle;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;

/**
 * A client of paimon-serve's Flight SQL written by others: the Arrow Flight SQL JDBC driver
 * ({@code org.apache.arrow:flight-sql-jdbc-driver}). The URL is the driver's, e.g.
 * {@code jdbc:arrow-flight-sql://127.0.0.1:PORT?useEncryption=false&user=U&password=TOKEN}.
 * Arrow's memory needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED} on Java 17
 * ({@code ORACLE_JAVA_OPTS}).
 */
final class FlightSqlJdbc {
    private FlightSqlJdbc() {}

    /** {@code flight-sql-query URL SQL}: the rows, one JSON object per line, in column order. */
    static void query(Args a, PrintStream out) throws Exception {
        try (Connection c = connect(a.positional(0));
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(a.positional(1))) {
            print(rs, out);
        }
    }

    /** {@code flight-sql-tables URL}: {@code DatabaseMetaData.getTables} of every table. */
    static void tables(Args a, PrintStream out) throws Exception {
        try (Connection c = connect(a.positional(0));
                ResultSet rs = c.getMetaData().getTables(null, null, "%", null)) {
            print(rs, out);
        }
    }

    private static Connection connect(String url) throws Exception {
        Class.forName("org.apache.arrow.driver.jdbc.ArrowFlightJdbcDriver");
        return DriverManager.getConnection(url);
    }

    private static void print(ResultSet rs, PrintStream out) throws Exception {
        ResultSetMetaData md = rs.getMetaData();
        int n = md.getColumnCount();
        while (rs.next()) {
            StringBuilder line = new StringBuilder("{");
            for (int i = 1; i <= n; i++) {
                if (i > 1) {
                    line.append(',');
                }
                quote(md.getColumnLabel(i), line);
                line.append(':');
                Object v = rs.getObject(i);
                if (v == null) {
                    line.append("null");
                } else if (v instanceof Number || v instanceof Boolean) {
                    line.append(v);
                } else {
                    quote(v.toString(), line);
                }
            }
            out.println(line.append('}'));
        }
    }

    private static void quote(String s, StringBuilder b) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"':
                    b.append("\\\"");
                    break;
                case '\\':
                    b.append("\\\\");
                    break;
                default:
                    if (ch < 0x20) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
            }
        }
        b.append('"');
    }
}
