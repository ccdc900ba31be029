package io.stallscope.agent.report;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.config.Endpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint inside a broker can neither be held nor spend the broker's file descriptors. With the JDK's
 * HttpServer one client that sent a byte and waited held its only worker, and every connection after it held a
 * descriptor in an unbounded queue (1,500 connections on a 3.9.2 broker: no scrape answered in 5 s, descriptors
 * 159 -> 1,659). Here a flood of such clients costs at most the server's connection cap, and a scrape answers.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PrometheusEndpointTest {
    /** 3,000 in the broker check; fewer here to keep the unit suite short, still 30x the cap. */
    private static final int STALLED = 1000;

    @Test
    void aFloodOfStalledClientsHoldsFewDescriptorsAndAScrapeStillAnswers() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.counter("stallscope_flood_test").increment();
        try (PrometheusEndpoint endpoint = new PrometheusEndpoint(loopbackAnyPort(), registry)) {
            long before = openDescriptors();
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < STALLED; i++) {
                    Socket s = new Socket();
                    stalled.add(s);
                    try {
                        s.connect(new InetSocketAddress("127.0.0.1", endpoint.port()), 2000);
                        s.getOutputStream().write('G'); // one byte of a request that never ends
                    } catch (IOException e) {
                        // closed by the server at once: as intended
                    }
                }
                // the test's own client sockets are in this process too: the server's side adds at most about its cap
                long serverSide = openDescriptors() - before - stalled.size();
                assertThat(serverSide).as("descriptors the endpoint holds for %d stalled clients", STALLED)
                    .isLessThanOrEqualTo(BoundedHttpServer.MAX_CONNECTIONS + 8L);
                HttpURLConnection scrape = (HttpURLConnection) URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")
                    .toURL().openConnection();
                scrape.setConnectTimeout(5000);
                scrape.setReadTimeout(5000);
                assertThat(scrape.getResponseCode()).as("a scrape among the stalled clients").isEqualTo(200);
                try (InputStream in = scrape.getInputStream()) {
                    assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contains("stallscope_flood_test");
                }
            } finally {
                for (Socket s : stalled) {
                    s.close();
                }
            }
        }
    }

    private static Endpoint loopbackAnyPort() throws Exception {
        return AgentOptions.parse("prometheus=127.0.0.1:0", java.util.Map.of()).prometheus();
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
