package io.stallscope.agent.report;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.config.Endpoint;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Serves the registry in Prometheus text format, at any path (/metrics by convention), on one daemon thread of a
 * {@link BoundedHttpServer}: a client can neither hold the endpoint nor spend the broker's file descriptors.
 */
public final class PrometheusEndpoint implements AutoCloseable {
    private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private final BoundedHttpServer server;

    public PrometheusEndpoint(Endpoint endpoint, PrometheusMeterRegistry registry) throws IOException {
        server = new BoundedHttpServer(new InetSocketAddress(endpoint.host(), endpoint.port()), "stallscope-prometheus",
            requestLine -> {
                try {
                    return new BoundedHttpServer.Response(200, CONTENT_TYPE,
                        PlainBucketBounds.rewrite(registry.scrape()).getBytes(StandardCharsets.UTF_8));
                } catch (RuntimeException e) {
                    // say why instead of dropping the connection; the broker is unaffected
                    return new BoundedHttpServer.Response(500, CONTENT_TYPE,
                        ("stallscope: scrape failed: " + e + "\n").getBytes(StandardCharsets.UTF_8));
                }
            });
    }

    public int port() {
        return server.address().getPort();
    }

    public String address() {
        return server.address().getHostString() + ":" + port();
    }

    @Override
    public void close() {
        server.close();
    }
}
