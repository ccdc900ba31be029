package io.stallscope.it.examples;

import io.stallscope.it.broker.PrometheusScrape;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Metrics the agent serves only once a slow op has paired with the op it waited behind (docs/reference.md: "No
 * series until an op pairs"). A broker on a fast disk, as ExampleQueriesIT's, pairs nothing, so its scrape lacks
 * them: a query on one is checked against what that scrape does serve instead. Its label names are the ones
 * docs/reference.md gives it, and its op and role values must be ones the agent serves for stallscope_op_seconds,
 * whose vocabulary the pairing labels share.
 */
final class PairedOnlyMetrics {
    static final String BLOCKED_BEHIND = "stallscope_blocked_behind_seconds_total";
    private static final String VOCABULARY = "stallscope_op_seconds_count";
    /** Each label of the pairing, and the label of stallscope_op_seconds whose values it takes. */
    private static final Map<String, String> VALUES_FROM = Map.of(
        "op", "op", "role", "role", "behind_op", "op", "behind_role", "role");
    /** The agent's Scope labels, as docs/reference.md names them: pool is a remote read queued behind the reader pool's reads. */
    static final Set<String> SCOPES = Set.of("file", "log", "device", "pool");

    private PairedOnlyMetrics() {
    }

    static boolean covers(String metric) {
        return BLOCKED_BEHIND.equals(metric);
    }

    /** The labels docs/reference.md gives the metric, which must still say it has no series before a pairing. */
    static Set<String> labelNames(String metric) {
        String reference;
        try {
            reference = Files.readString(Examples.root().resolve("docs/reference.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (MarkdownTable.Table t : MarkdownTable.findAll(reference, "| metric | type | labels |")) {
            for (Map<String, String> row : t.rows()) {
                if (row.get("metric").equals("`" + metric + "`")) {
                    if (!row.get("meaning").contains("No series until")) {
                        throw new IllegalStateException(metric + " is no longer paired-only in docs/reference.md: " + row);
                    }
                    return new LinkedHashSet<>(Arrays.asList(row.get("labels").split(",\\s*")));
                }
            }
        }
        throw new IllegalStateException("docs/reference.md does not list " + metric);
    }

    /** The values a label of the metric can take, as far as the scrape tells. */
    static Set<String> labelValues(PrometheusScrape scrape, String label) {
        if (label.equals("scope")) {
            return SCOPES;
        }
        String from = VALUES_FROM.get(label);
        return from == null ? Set.of() : scrape.labelValues(VOCABULARY, from);
    }
}
