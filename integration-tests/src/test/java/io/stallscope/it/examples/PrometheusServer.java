package io.stallscope.it.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.it.broker.FreePorts;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's prometheus package) on 127.0.0.1, scraping one agent every second
 * and evaluating the example alert rules every second: the rules as Prometheus runs them, on the
 * agent's real metrics.
 */
final class PrometheusServer implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path dir;

    private PrometheusServer(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    static PrometheusServer start(Path dir, Path rules, int agentPort) throws Exception {
        Path binary = ToolRequirement.require("prometheus", "stallscope.prometheus", "prometheus");
        Files.createDirectories(dir);
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, String.join("\n",
            "global:",
            "  scrape_interval: 1s",
            "  evaluation_interval: 1s",
            "rule_files:",
            "  - " + rules.toAbsolutePath(),
            "scrape_configs:",
            "  - job_name: kafka-stallscope",
            "    static_configs:",
            "      - targets: ['127.0.0.1:" + agentPort + "']",
            ""));
        int port = FreePorts.next();
        Process p = new ProcessBuilder(binary.toString(), "--config.file=" + config,
            "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
            .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        PrometheusServer server = new PrometheusServer(p, port, dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!server.ready()) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                server.close();
                throw new AssertionError("prometheus did not become ready: " + Files.readString(dir.resolve("prometheus.log")));
            }
            Thread.sleep(250);
        }
        server.awaitFirstScrape(deadline);
        return server;
    }

    /**
     * Target discovery hands the target to the scrape loop a few seconds after start: wait for a scrape that
     * succeeded, so that what happens next is seen from before it started, as on a monitored broker.
     */
    private void awaitFirstScrape(long deadline) throws Exception {
        while (true) {
            JsonNode result = query("up").path("data").path("result");
            if (result.size() > 0 && result.get(0).path("value").get(1).asText().equals("1")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                close();
                throw new AssertionError("prometheus never scraped the agent: " + result);
            }
            Thread.sleep(250);
        }
    }

    private boolean ready() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(base() + "/-/ready").toURL().openConnection();
            c.setConnectTimeout(1000);
            c.setReadTimeout(2000);
            try {
                return c.getResponseCode() == 200;
            } finally {
                c.disconnect();
            }
        } catch (IOException e) {
            return false;
        }
    }

    private String base() {
        return "http://127.0.0.1:" + port;
    }

    JsonNode api(String pathAndQuery) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(base() + pathAndQuery).toURL().openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(30000);
        try {
            InputStream in = c.getResponseCode() < 400 ? c.getInputStream() : c.getErrorStream();
            return new ObjectMapper().readTree(in);
        } finally {
            c.disconnect();
        }
    }

    /** An instant query, as Grafana's panel would send it; the response's "data" or the error. */
    JsonNode query(String expr) throws IOException {
        return api("/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8));
    }

    /** Alert name to state (pending, firing) of the active alerts. */
    Map<String, String> activeAlerts() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode a : api("/api/v1/alerts").path("data").path("alerts")) {
            out.merge(a.path("labels").path("alertname").asText(), a.path("state").asText(),
                (x, y) -> x.equals("firing") ? x : y);
        }
        return out;
    }

    /** Alert name to its summary as Prometheus rendered the template for an active alert. */
    Map<String, String> activeSummaries() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode a : api("/api/v1/alerts").path("data").path("alerts")) {
            out.put(a.path("labels").path("alertname").asText(), a.path("annotations").path("summary").asText());
        }
        return out;
    }

    /** Rule name to health ("ok", or "err" with lastError) as Prometheus loaded and evaluated them. */
    Map<String, String> ruleHealth() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode g : api("/api/v1/rules").path("data").path("groups")) {
            for (JsonNode r : g.path("rules")) {
                out.put(r.path("name").asText(), r.path("health").asText() + " " + r.path("lastError").asText(""));
            }
        }
        return out;
    }

    /** Waits until every named alert is active (pending or firing), or the timeout; returns the active alerts. */
    Map<String, String> awaitActive(List<String> alerts, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, String> active = activeAlerts();
        while (!active.keySet().containsAll(alerts) && System.nanoTime() < deadline) {
            Thread.sleep(1000);
            active = activeAlerts();
        }
        return active;
    }

    Path log() {
        return dir.resolve("prometheus.log");
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
