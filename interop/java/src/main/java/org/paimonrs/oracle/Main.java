package org.paimonrs.oracle;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Entry point: {@code java -jar paimon-oracle.jar CMD ...}. See README.md. */
public final class Main {

    private static final String USAGE =
            String.join(
                    "\n",
                    "usage: paimon-oracle CMD ...",
                    "  serve SOCKET_PATH   (answer commands on a Unix socket, one JVM for many calls: scripts/with-oracle.sh)",
                    "  write-fixtures OUT_WAREHOUSE",
                    "  dump TABLE_PATH [SCAN] [--select c1,c2] [--filter EXPR] [--with-kind] [--sort]",
                    "  plan TABLE_PATH [SCAN] [--select ..] [--filter ..] --out-dir DIR [--split-version N]",
                    "  read-split TABLE_PATH [SCAN] [--select ..] [--filter ..] [--with-kind] [--sort] SPLIT_FILE...",
                    "  commit-loop TABLE_PATH --seconds S [--retain N] [--seed N] [--rows N] [--rounds N]",
                    "  compact TABLE_PATH [--minor]   (one full compaction, or each writer's own, committed by Java)",
                    "  expire TABLE_PATH [--retain-max N] [--retain-min N] [--max-deletes N] [--time-retained-ms N]",
                    "  remove-orphan-files TABLE_PATH [--older-than-ms N] [--dry-run true]",
                    "  expire-partitions TABLE_PATH [--option k=v]...   (Java's PartitionExpire, run now)",
                    "  write-planning-table OUT_TABLE --files N --commits C [--format F] [--option k=v]...",
                    "  write-bench-tables OUT [--rows N] [--pk-rows N] [--small-rows N] [--only NAME]",
                    "  write-expected WAREHOUSE EXPECTED_DIR [--queries FILE]",
                    "  dump-tables LIST_FILE   (lines: TABLE_PATH<TAB>OUT_DIR)",
                    "  decode-commit-messages message|list|versioned|committable FILE [VERSION]",
                    "  system-table TABLE_PATH NAME... [--branch B]   (rows of Java's TABLE$NAME)",
                    "  prepare-messages TABLE OUT_DIR --from A --to B  (write (id, 'java-<id>') rows, commit nothing)",
                    "  predicate-json TABLE_PATH --filter EXPR   (Java's JSON of the filter, then read-back: ok|error)",
                    "  table-op TABLE_PATH create-tag|delete-tag|rename-tag|create-branch|delete-branch|fast-forward|rollback-to|consumers|reset-consumer ARGS...",
                    "  rest-server DATA_DIR URL_FILE [--token T | --dlf-access-key-id ID --dlf-access-key-secret S [--dlf-security-token ST] [--dlf-region R] [--dlf-signing-algorithm A]]   (Java's RESTCatalogServer on loopback until stdin closes)",
                    "  rest-write URI DB.TABLE --from A --to B [--token T]   (create if missing, write (id, 'java-<id>'))",
                    "  rest-dump URI DB.TABLE [--token T]   (rows through the REST catalog, sorted)",
                    "  flight-sql-query JDBC_URL SQL       (rows through the Flight SQL JDBC driver, JSON lines)",
                    "  flight-sql-tables JDBC_URL          (getTables through the Flight SQL JDBC driver, JSON lines)",
                    "  catalog-write --catalog-option K=V... DB.TABLE --from A --to B [--commits N]   (any catalog from options; create if missing, write (id, 'java-<id>') in N commits)",
                    "  catalog-dump --catalog-option K=V... DB.TABLE   (rows through the catalog, sorted)",
                    "  catalog-op --catalog-option K=V... list-databases|list-tables DB|create-database DB|drop-database DB|drop-table DB.T|rename-table DB.A DB.B",
                    "  catalog-meta --catalog-option K=V... DB.TABLE partitions|partitions-paged|partitions-by-names|snapshots-paged|tags|get-tag N|create-tag N|delete-tag N|branches|create-branch N|drop-branch N|rename-branch N --to M|fast-forward N|tables|table-details|table-tags|table-tag N|table-branches [--max N] [--pattern P] [--specs k=v/k=v;...] [--to M] [--snapshot N] [--retained D] [--from-tag T]",
                    "SCAN: [--snapshot N | --tag T | --incremental FROM,TO [--incremental-mode M] | --changes-since N] [--branch B] [--option k=v]...");

    private Main() {}

    public static void main(String[] args) throws Exception {
        PrintStream out =
                new PrintStream(
                        new java.io.BufferedOutputStream(
                                new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16),
                        false,
                        StandardCharsets.UTF_8);
        if (args.length == 0) {
            System.err.println(USAGE);
            System.exit(2);
        }
        if (args[0].equals("serve")) {
            Serve.run(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        int rc = run(args, out);
        System.exit(rc);
    }

    /**
     * Runs one command ({@code args[0]}) with its arguments, printing its output to {@code out};
     * returns the process exit code (0 ok, 1 failure, 2 usage). Used by {@link #main} and, once per
     * request, by {@link Serve}.
     */
    static int run(String[] args, PrintStream out) {
        String cmd = args[0];
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        int rc = 0;
        try {
            switch (cmd) {
                case "write-fixtures":
                    Fixtures.writeAll(Args.parse(rest).positional(0));
                    break;
                case "dump":
                    Commands.dump(Args.parse(rest), out);
                    break;
                case "plan":
                    Commands.plan(Args.parse(rest), out);
                    break;
                case "read-split":
                    Commands.readSplit(Args.parse(rest), out);
                    break;
                case "commit-loop":
                    CommitLoop.run(Args.parse(rest), out);
                    break;
                case "compact":
                    CommitLoop.compactOnce(Args.parse(rest), out);
                    break;
                case "expire":
                    Maintenance.expire(Args.parse(rest), out);
                    break;
                case "remove-orphan-files":
                    Maintenance.removeOrphanFiles(Args.parse(rest), out);
                    break;
                case "expire-partitions":
                    Maintenance.expirePartitions(Args.parse(rest), out);
                    break;
                case "write-expected":
                    Expected.write(Args.parse(rest), System.err);
                    break;
                case "dump-tables":
                    Expected.dumpTables(Args.parse(rest), out);
                    break;
                case "write-planning-table":
                    PlanningTable.write(Args.parse(rest), out);
                    break;
                case "decode-commit-messages":
                    CommitMessages.decode(Args.parse(rest), out);
                    break;
                case "system-table":
                    SystemTables.print(Args.parse(rest), out);
                    break;
                case "prepare-messages":
                    PrepareMessages.prepare(Args.parse(rest), out);
                    break;
                case "predicate-json":
                    PredicateJson.print(Args.parse(rest), out);
                    break;
                case "table-op":
                    TableOps.run(rest, out);
                    break;
                case "rest-server":
                    RestOracle.server(Args.parse(rest), out);
                    break;
                case "rest-write":
                    RestOracle.write(Args.parse(rest), out);
                    break;
                case "rest-dump":
                    RestOracle.dump(Args.parse(rest), out);
                    break;
                case "flight-sql-query":
                    FlightSqlJdbc.query(Args.parse(rest), out);
                    break;
                case "flight-sql-tables":
                    FlightSqlJdbc.tables(Args.parse(rest), out);
                    break;
                case "catalog-write":
                    CatalogOracle.write(Args.parse(rest), out);
                    break;
                case "catalog-dump":
                    CatalogOracle.dump(Args.parse(rest), out);
                    break;
                case "catalog-meta":
                    CatalogOracle.meta(Args.parse(rest), out);
                    break;
                case "catalog-op":
                    CatalogOracle.op(Args.parse(rest), out);
                    break;
                case "write-bench-tables":
                    BenchTables.write(Args.parse(rest), out);
                    break;
                case "-h":
                case "--help":
                case "help":
                    out.println(USAGE);
                    break;
                default:
                    System.err.println("unknown command: " + cmd);
                    System.err.println(USAGE);
                    rc = 2;
            }
        } catch (IllegalArgumentException e) {
            out.flush();
            System.err.println("error: " + e.getMessage());
            rc = 2;
        } catch (Throwable t) {
            out.flush();
            t.printStackTrace();
            rc = 1;
        }
        out.flush();
        return rc;
    }
}
