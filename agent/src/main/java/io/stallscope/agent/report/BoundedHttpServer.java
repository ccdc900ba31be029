package io.stallscope.agent.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Locale;
import java.util.function.Function;
import java.util.zip.GZIPOutputStream;

/**
 * A one-thread HTTP server inside a broker, which must never hold the broker's resources: the JDK's HttpServer
 * has no request timeout and no connection cap, so one client that sent a byte and waited held its only worker,
 * every later connection queued without end, and each held one of the broker's file descriptors (1,500 such
 * connections: scrapes unanswered, 1,500 descriptors more). Here a single selector thread reads requests without
 * blocking on any client; at most {@link #MAX_CONNECTIONS} are open, and past that the oldest one whose request
 * is not complete is closed to make room (a scraper sends its request at once, a slow client never completes
 * one); each connection has {@link #TIMEOUT_NANOS} from accept to the end of its response, and a request is at
 * most {@link #MAX_REQUEST_BYTES}. One response per connection, then it is closed.
 */
final class BoundedHttpServer implements AutoCloseable {
    static final int MAX_CONNECTIONS = 32;
    static final long TIMEOUT_NANOS = 5_000_000_000L;
    static final int MAX_REQUEST_BYTES = 8192;
    private static final int ACCEPTS_PER_ROUND = 8;

    /** What the handler answers for a request: status, content type and body. */
    static final class Response {
        final int status;
        final String contentType;
        final byte[] body;

        Response(int status, String contentType, byte[] body) {
            this.status = status;
            this.contentType = contentType;
            this.body = body;
        }
    }

    private final ServerSocketChannel server;
    private final Selector selector;
    private final Function<String, Response> handler;
    private final Thread thread;
    /** Open connections, oldest first. */
    private final ArrayDeque<Connection> open = new ArrayDeque<>();
    private volatile boolean closed;

    /** @param handler called on the server's thread with the request line, e.g. "GET /metrics HTTP/1.1" */
    BoundedHttpServer(InetSocketAddress address, String threadName, Function<String, Response> handler) throws IOException {
        this.handler = handler;
        selector = Selector.open();
        server = ServerSocketChannel.open();
        try {
            server.bind(address, 64);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            server.close();
            selector.close();
            throw e;
        }
        thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("closed", e);
        }
    }

    /** Connections open right now. */
    int openConnections() {
        synchronized (open) {
            return open.size();
        }
    }

    private void run() {
        while (!closed) {
            try {
                selector.select(250);
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    if (!key.isValid()) {
                        continue;
                    }
                    if (key.isAcceptable()) {
                        accept();
                    } else {
                        ((Connection) key.attachment()).ready(key);
                    }
                }
                expire(System.nanoTime());
            } catch (IOException | RuntimeException e) {
                // one bad connection or a selector hiccup: the server goes on (the broker is never affected)
            }
        }
    }

    /**
     * At most {@link #ACCEPTS_PER_ROUND} a round, so that between two evictions a scraper accepted among a flood of
     * connections gets its request read (it is the newest, the last evicted).
     */
    private void accept() throws IOException {
        SocketChannel channel;
        for (int i = 0; i < ACCEPTS_PER_ROUND && (channel = server.accept()) != null; i++) {
            if (openConnections() >= MAX_CONNECTIONS && !evictOneIncomplete()) {
                channel.close(); // every slot is a request being answered: this client may retry
                continue;
            }
            channel.configureBlocking(false);
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            Connection c = new Connection(channel, System.nanoTime());
            c.key = channel.register(selector, SelectionKey.OP_READ, c);
            synchronized (open) {
                open.addLast(c);
            }
        }
    }

    /** Closes the oldest connection still reading its request; false when every open one has its request. */
    private boolean evictOneIncomplete() {
        Connection oldest = null;
        synchronized (open) {
            for (Connection c : open) {
                if (c.response == null) {
                    oldest = c;
                    break;
                }
            }
        }
        if (oldest == null) {
            return false;
        }
        oldest.close();
        return true;
    }

    private void expire(long now) {
        synchronized (open) {
            while (!open.isEmpty() && now - open.peekFirst().acceptedAt > TIMEOUT_NANOS) {
                open.peekFirst().close();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (open) {
            while (!open.isEmpty()) {
                open.peekFirst().close();
            }
        }
        try {
            server.close();
            selector.close();
        } catch (IOException e) {
            // closing: nothing left to do
        }
    }

    /** One client: its request bytes so far, then its response until written. */
    private final class Connection {
        final SocketChannel channel;
        final long acceptedAt;
        final ByteArrayOutputStream request = new ByteArrayOutputStream();
        final ByteBuffer in = ByteBuffer.allocate(1024);
        SelectionKey key;
        ByteBuffer response;

        Connection(SocketChannel channel, long acceptedAt) {
            this.channel = channel;
            this.acceptedAt = acceptedAt;
        }

        void ready(SelectionKey k) throws IOException {
            try {
                if (k.isReadable() && response == null) {
                    read();
                }
                if (k.isValid() && k.isWritable() && response != null) {
                    write();
                }
            } catch (IOException e) {
                close();
            }
        }

        private void read() throws IOException {
            in.clear();
            int n = channel.read(in);
            if (n < 0) {
                close();
                return;
            }
            request.write(in.array(), 0, n);
            String text = request.toString(StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                end = text.indexOf("\n\n");
            }
            if (end < 0) {
                if (request.size() > MAX_REQUEST_BYTES) {
                    respond(new Response(431, "text/plain; charset=utf-8",
                        "request header too large\n".getBytes(StandardCharsets.UTF_8)), false);
                }
                return;
            }
            String head = text.substring(0, end);
            int eol = head.indexOf('\n');
            String requestLine = (eol < 0 ? head : head.substring(0, eol)).trim();
            Response r;
            try {
                r = handler.apply(requestLine);
            } catch (RuntimeException e) {
                r = new Response(500, "text/plain; charset=utf-8",
                    ("stallscope: " + e + "\n").getBytes(StandardCharsets.UTF_8));
            }
            respond(r, acceptsGzip(head));
        }

        private void respond(Response r, boolean gzip) throws IOException {
            byte[] body = gzip ? gzip(r.body) : r.body;
            String head = "HTTP/1.1 " + r.status + " " + reason(r.status) + "\r\n"
                + "Content-Type: " + r.contentType + "\r\n"
                + (gzip ? "Content-Encoding: gzip\r\n" : "")
                + "Content-Length: " + body.length + "\r\n"
                + "Connection: close\r\n\r\n";
            byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
            response = ByteBuffer.allocate(h.length + body.length).put(h).put(body);
            response.flip();
            key.interestOps(SelectionKey.OP_WRITE);
            write();
        }

        private void write() throws IOException {
            channel.write(response);
            if (!response.hasRemaining()) {
                close();
            }
        }

        void close() {
            synchronized (open) {
                open.remove(this);
            }
            if (key != null) {
                key.cancel();
            }
            try {
                channel.close();
            } catch (IOException e) {
                // already gone
            }
        }
    }

    private static boolean acceptsGzip(String head) {
        for (String line : head.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("Accept-Encoding")
                && line.substring(colon + 1).toLowerCase(Locale.ROOT).contains("gzip")) {
                return true;
            }
        }
        return false;
    }

    private static byte[] gzip(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(body);
        }
        return out.toByteArray();
    }

    private static String reason(int status) {
        switch (status) {
            case 200:
                return "OK";
            case 431:
                return "Request Header Fields Too Large";
            default:
                return "Internal Server Error";
        }
    }
}
