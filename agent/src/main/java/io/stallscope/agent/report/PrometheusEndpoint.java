package io.stallscope.agent.report;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.config.Endpoint;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Serves the registry in Prometheus text format on one daemon thread, at any path (/metrics by convention). */
public final class PrometheusEndpoint implements AutoCloseable {
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private final HttpServer server;
    private final ExecutorService executor;

    public PrometheusEndpoint(Endpoint endpoint, PrometheusMeterRegistry registry) throws IOException {
        server = HttpServer.create(new InetSocketAddress(endpoint.host(), endpoint.port()), 8);
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "stallscope-prometheus");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try {
                int status = 200;
                byte[] body;
                try {
                    body = PlainBucketBounds.rewrite(registry.scrape()).getBytes(StandardCharsets.UTF_8);
                } catch (RuntimeException e) {
                    // say why instead of dropping the connection; the broker is unaffected
                    status = 500;
                    body = ("stallscope: scrape failed: " + e + "\n").getBytes(StandardCharsets.UTF_8);
                }
                exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
                exchange.sendResponseHeaders(status, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            } finally {
                exchange.close();
            }
        });
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public String address() {
        return server.getAddress().getHostString() + ":" + port();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
