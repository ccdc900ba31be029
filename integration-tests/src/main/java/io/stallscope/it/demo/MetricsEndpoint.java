package io.stallscope.it.demo;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The agent's Prometheus endpoint: scraped for the op table and the mitigations' counters. */
final class MetricsEndpoint {
    private static final Pattern EVENT = Pattern.compile(
        "^stallscope_mitigation_events_total\\{([^}]*)} (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");
    private static final Pattern PREFETCH_BYTES = Pattern.compile("^stallscope_prefetch_bytes_total(?:\\{[^}]*})? (\\S+)$");

    private final URI uri;

    MetricsEndpoint(URI uri) {
        this.uri = uri;
    }

    URI uri() {
        return uri;
    }

    String scrape() throws IOException {
        HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(10_000);
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }

    /** The op histograms now; empty (with no rows) when the endpoint does not answer. */
    OpHistograms histograms() {
        try {
            return OpHistograms.parse(scrape());
        } catch (IOException e) {
            return OpHistograms.empty();
        }
    }

    /** What the mitigations did, e.g. "prefetch warmed=241, roll-flush deferred=57; prefetch warmed 241.0 MiB in all". */
    static String mitigationSummary(String scrape) {
        Map<String, Double> events = new TreeMap<>();
        double prefetched = 0;
        for (String line : scrape.split("\n")) {
            Matcher m = EVENT.matcher(line);
            if (m.matches()) {
                Map<String, String> labels = new TreeMap<>();
                Matcher l = LABEL.matcher(m.group(1));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
                events.merge(labels.get("mitigation") + " " + labels.get("event"), Double.parseDouble(m.group(2)), Double::sum);
            }
            Matcher p = PREFETCH_BYTES.matcher(line);
            if (p.matches()) {
                prefetched += Double.parseDouble(p.group(1));
            }
        }
        StringBuilder sb = new StringBuilder();
        events.forEach((k, v) -> {
            if (v > 0) {
                sb.append(sb.length() == 0 ? "" : ", ").append(k).append('=').append((long) (double) v);
            }
        });
        if (prefetched > 0) {
            sb.append(String.format(Locale.ROOT, "; prefetch warmed %.1f MiB in all", prefetched / (1 << 20)));
        }
        return sb.length() == 0 ? "no mitigation events" : sb.toString();
    }
}
