package io.stallscope.agent.report;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/** The endpoint's server: gzip when asked, a time and a size bound on every request (the flood: PrometheusEndpointTest). */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BoundedHttpServerTest {
    private static final byte[] BODY = "metric_total 1\n".repeat(200).getBytes(StandardCharsets.UTF_8);
    private BoundedHttpServer server;
    private final List<String> requests = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = new BoundedHttpServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), "test-http", line -> {
            synchronized (requests) {
                requests.add(line);
            }
            return new BoundedHttpServer.Response(200, "text/plain; version=0.0.4; charset=utf-8", BODY);
        });
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void answersAScrapePlainAndGzippedWhenAsked() throws Exception {
        HttpURLConnection plain = open();
        assertThat(plain.getResponseCode()).isEqualTo(200);
        assertThat(plain.getHeaderField("Content-Type")).startsWith("text/plain; version=0.0.4");
        try (InputStream in = plain.getInputStream()) {
            assertThat(in.readAllBytes()).isEqualTo(BODY);
        }
        HttpURLConnection zipped = open();
        zipped.setRequestProperty("Accept-Encoding", "gzip");
        assertThat(zipped.getResponseCode()).isEqualTo(200);
        assertThat(zipped.getHeaderField("Content-Encoding")).isEqualTo("gzip");
        assertThat(zipped.getContentLength()).isLessThan(BODY.length / 4);
        try (InputStream in = new GZIPInputStream(zipped.getInputStream())) {
            assertThat(in.readAllBytes()).isEqualTo(BODY);
        }
        assertThat(requests).containsExactly("GET /metrics HTTP/1.1", "GET /metrics HTTP/1.1");
    }

    @Test
    void aClientThatNeverEndsItsRequestIsClosedAfterTheTimeout() throws Exception {
        try (Socket s = new Socket()) {
            s.connect(server.address(), 2000);
            s.getOutputStream().write("GET /metr".getBytes(StandardCharsets.ISO_8859_1));
            s.setSoTimeout((int) TimeUnit.NANOSECONDS.toMillis(BoundedHttpServer.TIMEOUT_NANOS) + 5000);
            long start = System.nanoTime();
            assertThat(s.getInputStream().read()).as("closed by the server, nothing sent").isEqualTo(-1);
            assertThat(System.nanoTime() - start).isLessThan(BoundedHttpServer.TIMEOUT_NANOS + TimeUnit.SECONDS.toNanos(4));
            assertThat(server.openConnections()).isZero();
        }
    }

    @Test
    void anOversizedRequestIsRefusedWithoutReadingOn() throws Exception {
        try (Socket s = new Socket()) {
            s.connect(server.address(), 2000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(("GET / HTTP/1.1\r\nX-Big: " + "x".repeat(BoundedHttpServer.MAX_REQUEST_BYTES) + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 431 ");
        }
        assertThat(requests).isEmpty();
    }

    private HttpURLConnection open() throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + server.address().getPort() + "/metrics")
            .toURL().openConnection();
        c.setConnectTimeout(5000);
        c.setReadTimeout(5000);
        return c;
    }
}
