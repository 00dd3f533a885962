package org.paimonrs.oracle;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code serve SOCKET_PATH}: one JVM answering many oracle commands, so a test's call costs no JVM
 * start and no class loading (scripts/with-oracle.sh starts it, scripts/java-oracle.sh talks to it
 * through scripts/oracle-client.py and falls back to {@code java -jar} when it is absent).
 *
 * <p>Protocol, one command per connection on a Unix domain socket: the client sends the command's
 * arguments (as {@code java -jar paimon-oracle.jar ARGS...} would get them), each followed by a NUL
 * byte, then shuts down its sending side. The server answers with frames {@code KIND LENGTH
 * PAYLOAD}: KIND one byte ({@code 'o'} stdout bytes, {@code 'e'} stderr bytes, {@code 'x'} the exit
 * code as a 4-byte big-endian int, always the last frame), LENGTH a 4-byte big-endian int. Each
 * connection runs on its own thread, so concurrent test threads are served concurrently; whatever a
 * command prints on {@code System.err} from its own thread reaches its own client.
 */
final class Serve {

    private static final ThreadLocal<OutputStream> ERR = new ThreadLocal<>();

    private Serve() {}

    static void run(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: serve SOCKET_PATH");
        }
        Path socket = Path.of(args[0]);
        PrintStream serverErr = System.err;
        System.setErr(new PrintStream(new Routed(serverErr), true, StandardCharsets.UTF_8));
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(socket)));
        serverErr.println("paimon-oracle: serving on " + socket);
        while (true) {
            SocketChannel conn = server.accept();
            Thread t = new Thread(() -> answer(conn), "oracle-request");
            t.setDaemon(true);
            t.start();
        }
    }

    /** Reads one request, runs it through {@link Main#run}, writes the framed reply. */
    private static void answer(SocketChannel conn) {
        try (conn) {
            List<String> args = readArgs(Channels.newInputStream(conn));
            OutputStream sock = new BufferedOutputStream(Channels.newOutputStream(conn), 1 << 16);
            Object lock = new Object();
            PrintStream out =
                    new PrintStream(
                            new BufferedOutputStream(new Frames(sock, (byte) 'o', lock), 1 << 16),
                            false,
                            StandardCharsets.UTF_8);
            ERR.set(new Frames(sock, (byte) 'e', lock));
            int rc;
            try {
                if (args.isEmpty()) {
                    System.err.println("error: empty request");
                    rc = 2;
                } else {
                    rc = Main.run(args.toArray(new String[0]), out);
                }
            } finally {
                out.flush();
                System.err.flush();
                ERR.remove();
            }
            synchronized (lock) {
                byte[] code = new byte[4];
                putInt(code, 0, rc);
                writeFrame(sock, (byte) 'x', code, 0, 4);
                sock.flush();
            }
        } catch (Throwable t) {
            // The client went away (or sent garbage): nothing to answer; the server keeps serving.
            System.err.println("paimon-oracle serve: request failed: " + t);
        }
    }

    private static List<String> readArgs(InputStream in) throws IOException {
        byte[] all = in.readAllBytes();
        List<String> args = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == 0) {
                args.add(new String(all, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (start != all.length) {
            throw new IOException("request does not end with NUL (" + (all.length - start) + " bytes left)");
        }
        return args;
    }

    private static void writeFrame(OutputStream sock, byte kind, byte[] b, int off, int len)
            throws IOException {
        byte[] head = new byte[5];
        head[0] = kind;
        putInt(head, 1, len);
        sock.write(head);
        sock.write(b, off, len);
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort at shutdown
        }
    }

    /** One output channel of a reply: every write becomes one frame of its kind. */
    private static final class Frames extends OutputStream {
        private final OutputStream sock;
        private final byte kind;
        private final Object lock;

        Frames(OutputStream sock, byte kind, Object lock) {
            this.sock = sock;
            this.kind = kind;
            this.lock = lock;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return;
            }
            synchronized (lock) {
                writeFrame(sock, kind, b, off, len);
                if (kind == 'e') {
                    sock.flush();
                }
            }
        }

        @Override
        public void flush() throws IOException {
            synchronized (lock) {
                sock.flush();
            }
        }
    }

    /** {@code System.err} in serve mode: the current request's stderr, else the server's own. */
    private static final class Routed extends OutputStream {
        private final OutputStream fallback;

        Routed(OutputStream fallback) {
            this.fallback = fallback;
        }

        private OutputStream target() {
            OutputStream t = ERR.get();
            return t != null ? t : fallback;
        }

        @Override
        public void write(int b) throws IOException {
            target().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            target().write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            target().flush();
        }
    }
}
