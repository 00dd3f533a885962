package org.paimonrs.oracle;

import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.paimon.shade.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.utils.SnapshotManager;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code write-expected WAREHOUSE EXPECTED_DIR [--queries FILE]}: runs {@code dump --sort} for
 * every table of a warehouse, in one JVM:
 *
 * <pre>
 * EXPECTED_DIR/&lt;db&gt;/&lt;table&gt;/latest.jsonl
 *                            snapshot-N.jsonl       every snapshot still present
 *                            tag-T.jsonl            every tag
 *                            branch-B/latest.jsonl  every branch but main
 *                            &lt;query files&gt;         from the queries manifest
 * </pre>
 *
 * The queries manifest is a JSON array of {"table": "db/table", "args": [...], "expected":
 * "db/table/name.jsonl"}; args are dump's options and "--sort" is always added.
 */
final class Expected {

    private Expected() {}

    static void write(Args a, PrintStream log) throws Exception {
        Path warehouse = Paths.get(a.positional(0));
        Path outDir = Paths.get(a.positional(1));
        int count = 0;
        File[] dbs = warehouse.toFile().listFiles((d, n) -> n.endsWith(".db"));
        Arrays.sort(dbs);
        for (File db : dbs) {
            String dbName = db.getName().substring(0, db.getName().length() - 3);
            File[] tables = db.listFiles(f -> new File(f, "schema").isDirectory());
            Arrays.sort(tables);
            for (File t : tables) {
                Path dir = outDir.resolve(dbName).resolve(t.getName());
                String tp = t.getPath();
                FileStoreTable table = Commands.open(tp);
                dump(tp, List.of(), dir.resolve("latest.jsonl"));
                count++;
                SnapshotManager sm = table.snapshotManager();
                Long earliest = sm.earliestSnapshotId();
                Long latest = sm.latestSnapshotId();
                if (earliest != null) {
                    for (long s = earliest; s <= latest; s++) {
                        if (sm.snapshotExists(s)) {
                            dump(tp, List.of("--snapshot", Long.toString(s)),
                                    dir.resolve("snapshot-" + s + ".jsonl"));
                            count++;
                        }
                    }
                }
                for (String tag : table.tagManager().allTagNames()) {
                    dump(tp, List.of("--tag", tag), dir.resolve("tag-" + tag + ".jsonl"));
                    count++;
                }
                for (String branch : table.branchManager().branches()) {
                    dump(tp, List.of("--branch", branch),
                            dir.resolve("branch-" + branch).resolve("latest.jsonl"));
                    count++;
                }
            }
        }
        if (a.has("--queries")) {
            JsonNode root = new ObjectMapper().readTree(new File(a.get("--queries")));
            for (JsonNode q : root) {
                List<String> args = new ArrayList<>();
                for (JsonNode x : q.get("args")) {
                    args.add(x.asText());
                }
                String[] parts = q.get("table").asText().split("/");
                Path tp = warehouse.resolve(parts[0] + ".db").resolve(parts[1]);
                dump(tp.toString(), args, outDir.resolve(q.get("expected").asText()));
                count++;
            }
        }
        log.println(count + " expected files written");
    }

    /**
     * {@code dump-tables LIST_FILE}: each line is {@code TABLE_PATH<TAB>OUT_DIR}; writes
     * OUT_DIR/latest.jsonl and, for primary-key tables, OUT_DIR/snapshot-N.jsonl for every
     * snapshot present, and OUT_DIR/branch-B/latest.jsonl for every branch. Prints "ok TABLE" or "FAIL TABLE reason" per line, one JVM for all.
     */
    static void dumpTables(Args a, PrintStream out) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(a.positional(0)));
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.split("\t");
            String tp = parts[0];
            Path dir = Paths.get(parts[1]);
            try {
                dump(tp, List.of(), dir.resolve("latest.jsonl"));
                FileStoreTable table = Commands.open(tp);
                if (!table.primaryKeys().isEmpty()) {
                    SnapshotManager sm = table.snapshotManager();
                    Long earliest = sm.earliestSnapshotId();
                    Long latest = sm.latestSnapshotId();
                    for (long s = earliest == null ? 1 : earliest; latest != null && s <= latest; s++) {
                        if (sm.snapshotExists(s)) {
                            dump(tp, List.of("--snapshot", Long.toString(s)),
                                    dir.resolve("snapshot-" + s + ".jsonl"));
                        }
                    }
                }
                for (String branch : table.branchManager().branches()) {
                    dump(tp, List.of("--branch", branch),
                            dir.resolve("branch-" + branch).resolve("latest.jsonl"));
                }
                out.println("ok " + tp);
            } catch (Throwable t) {
                Throwable root = t;
                while (root.getCause() != null && root.getCause() != root) {
                    root = root.getCause();
                }
                String msg = (root.getClass().getSimpleName() + ": " + root.getMessage())
                        .replace('\n', ' ');
                if (msg.length() > 300) {
                    msg = msg.substring(0, 300) + "...";
                }
                out.println("FAIL " + tp + " " + msg);
            }
            out.flush();
        }
    }

    private static void dump(String table, List<String> opts, Path out) throws Exception {
        List<String> argv = new ArrayList<>();
        argv.add(table);
        argv.addAll(opts);
        if (!argv.contains("--sort")) {
            argv.add("--sort");
        }
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (PrintStream ps = new PrintStream(bos, false, StandardCharsets.UTF_8)) {
            Commands.dump(Args.parse(argv.toArray(new String[0])), ps);
        }
        Files.createDirectories(out.getParent());
        Files.write(out, bos.toByteArray());
    }
}
