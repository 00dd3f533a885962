package org.paimonrs.oracle;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.options.Options;
import org.apache.paimon.rest.RESTCatalogServer;
import org.apache.paimon.rest.auth.AuthProvider;
import org.apache.paimon.rest.auth.BearTokenAuthProvider;
import org.apache.paimon.rest.auth.DLFDefaultSigner;
import org.apache.paimon.rest.auth.DLFOpenApiSigner;
import org.apache.paimon.rest.auth.DLFRequestSigner;
import org.apache.paimon.rest.auth.DLFToken;
import org.apache.paimon.rest.responses.ConfigResponse;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.Split;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.types.DataTypes;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Java's own REST catalog server ({@code RESTCatalogServer} from paimon-core's tests jar, on
 * okhttp's mockwebserver) and a Java client of it ({@code RESTCatalog}), for the REST interop
 * tests of paimon-rs.
 */
final class RestOracle {

    /** The catalog name the server serves ({@code warehouse} of the handshake). */
    static final String REST_WAREHOUSE = "rest_warehouse";

    private RestOracle() {}

    /**
     * {@code rest-server DATA_DIR URL_FILE [--token T] [--dlf-access-key-id ID
     * --dlf-access-key-secret S [--dlf-security-token ST] [--dlf-region R]
     * [--dlf-signing-algorithm default|openapi]]}: serves DATA_DIR through Java's
     * RESTCatalogServer (bearer token T, default {@code token}, or DLF signatures checked by
     * Java's own signers; prefix {@code paimon}) on loopback, writes its URL to URL_FILE
     * (atomically) and on stdout, and runs until stdin closes.
     */
    static void server(Args a, PrintStream out) throws Exception {
        String dataPath = a.positional(0);
        Path urlFile = Path.of(a.positional(1));
        String token = a.get("--token") == null ? "token" : a.get("--token");
        ConfigResponse config =
                new ConfigResponse(
                        Map.of("prefix", "paimon", "warehouse", REST_WAREHOUSE), Map.of());
        AuthProvider auth =
                a.get("--dlf-access-key-id") == null
                        ? new BearTokenAuthProvider(token)
                        : dlfVerifier(a);
        RESTCatalogServer server =
                new RESTCatalogServer(dataPath, auth, config, REST_WAREHOUSE);
        server.start();
        String url = server.getUrl();
        Path tmp = urlFile.resolveSibling(urlFile.getFileName() + ".tmp");
        Files.write(tmp, url.getBytes(StandardCharsets.UTF_8));
        Files.move(tmp, urlFile, StandardCopyOption.ATOMIC_MOVE);
        out.println(url);
        out.flush();
        // Serve until the parent closes stdin (or dies).
        while (System.in.read() >= 0) {
            // Input is ignored.
        }
        server.shutdown();
    }

    /**
     * What RESTCatalogServer compares a request's {@code Authorization} with: the signature
     * Java's {@code DLFDefaultSigner} or {@code DLFOpenApiSigner} computes over the headers the
     * client sent (its date, not the server's clock, so no second boundary can fail it), after
     * checking that the security token is the configured one and {@code Content-MD5} is the
     * MD5 of the body received. Any mismatch answers 401.
     */
    static AuthProvider dlfVerifier(Args a) {
        String st = a.get("--dlf-security-token");
        DLFToken token =
                new DLFToken(
                        a.get("--dlf-access-key-id"), a.get("--dlf-access-key-secret"), st, null);
        String region = a.get("--dlf-region") == null ? "cn-hangzhou" : a.get("--dlf-region");
        boolean openApi = "openapi".equals(a.get("--dlf-signing-algorithm"));
        DLFRequestSigner signer = openApi ? new DLFOpenApiSigner() : new DLFDefaultSigner(region);
        String tokenHeader = openApi ? "x-acs-security-token" : "x-dlf-security-token";
        return (received, param) -> {
            // RESTCatalogServer hands the headers over with lower-case names; the OpenAPI
            // signer looks a few up by their proper names.
            Map<String, String> h = new HashMap<>();
            received.forEach((k, v) -> h.put(k.toLowerCase(Locale.ROOT), v));
            for (String n : List.of("Accept", "Content-MD5", "Content-Type", "Date", "Host")) {
                String v = h.get(n.toLowerCase(Locale.ROOT));
                if (v != null && openApi) {
                    h.remove(n.toLowerCase(Locale.ROOT));
                    h.put(n, v);
                }
            }
            String refused = "refused";
            if (st != null && !st.equals(h.get(tokenHeader))) {
                return Map.of("Authorization", refused);
            }
            try {
                String data = param.data();
                if (data != null && !data.isEmpty()) {
                    byte[] md5 =
                            MessageDigest.getInstance("MD5")
                                    .digest(data.getBytes(StandardCharsets.UTF_8));
                    String sent = h.getOrDefault("Content-MD5", h.get("content-md5"));
                    if (!Base64.getEncoder().encodeToString(md5).equals(sent)) {
                        return Map.of("Authorization", refused);
                    }
                }
                return Map.of(
                        "Authorization",
                        signer.authorization(param, token, h.getOrDefault("Host", ""), h));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        };
    }

    static Catalog catalog(Args a) {
        Options o = new Options();
        o.set("metastore", "rest");
        o.set("uri", a.positional(0));
        o.set("token.provider", "bear");
        o.set("token", a.get("--token") == null ? "token" : a.get("--token"));
        o.set("warehouse", REST_WAREHOUSE);
        return CatalogFactory.createCatalog(CatalogContext.create(o));
    }

    /**
     * {@code rest-write URI DB.TABLE --from A --to B [--token T]}: creates the database and
     * the table {@code (id INT, v STRING)} if missing, then writes rows (id, 'java-<id>') for
     * id in [A, B) in one batch commit, through the REST catalog.
     */
    static void write(Args a, PrintStream out) throws Exception {
        Identifier id = Identifier.fromString(a.positional(1));
        long from = a.getLong("--from", 0);
        long to = a.getLong("--to", 0);
        try (Catalog catalog = catalog(a)) {
            catalog.createDatabase(id.getDatabaseName(), true);
            Schema schema =
                    Schema.newBuilder()
                            .column("id", DataTypes.INT())
                            .column("v", DataTypes.STRING())
                            .build();
            catalog.createTable(id, schema, true);
            Table t = catalog.getTable(id);
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite();
                    BatchTableCommit c = wb.newCommit()) {
                for (long i = from; i < to; i++) {
                    w.write(GenericRow.of((int) i, BinaryString.fromString("java-" + i)));
                }
                c.commit(w.prepareCommit());
            }
            out.println("{\"written\":" + (to - from) + "}");
        }
    }

    /** {@code rest-dump URI DB.TABLE [--token T]}: every row through the REST catalog, sorted. */
    static void dump(Args a, PrintStream out) throws Exception {
        Identifier id = Identifier.fromString(a.positional(1));
        try (Catalog catalog = catalog(a)) {
            Table t = catalog.getTable(id);
            ReadBuilder rb = t.newReadBuilder();
            List<Split> splits = rb.newScan().plan().splits();
            TableRead read = rb.newRead();
            List<String> lines = new ArrayList<>();
            for (Split s : splits) {
                Commands.readInto(read, s, t.rowType(), false, lines);
            }
            Commands.print(lines, true, out);
        }
    }
}
