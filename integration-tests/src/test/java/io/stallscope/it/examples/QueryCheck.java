package io.stallscope.it.examples;

import io.stallscope.it.broker.PrometheusScrape;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks one query against a real scrape: every metric it names is served, every label it matches on
 * or groups by is one the metric carries, and every label value it asks for is one the agent serves.
 * Prometheus adds {@code instance} and {@code job} to every scraped series, so those are allowed too. A metric
 * served only after a pairing ({@link PairedOnlyMetrics}) is always checked against the vocabulary the agent can
 * serve, never against the pairings this run happened to make: whether a broker pairs anything depends on the
 * machine's speed, and a query must not pass or fail with it.
 */
final class QueryCheck {
    static final Set<String> TARGET_LABELS = Set.of("instance", "job");
    private static final Pattern LITERAL_ALTERNATION = Pattern.compile("[A-Za-z0-9_.:+-]+(\\|[A-Za-z0-9_.:+-]+)*");

    private QueryCheck() {
    }

    /** Problems found, each naming where the query comes from; empty if the query fits the scrape. */
    static List<String> problems(String where, String expr, PrometheusScrape scrape) {
        List<String> problems = new ArrayList<>();
        PromQl.Query query = PromQl.parse(expr);
        if (query.selectors().isEmpty()) {
            problems.add(where + ": no series selector in " + expr);
        }
        Set<String> served = new HashSet<>(TARGET_LABELS);
        for (PromQl.Selector s : query.selectors()) {
            boolean pairedOnly = PairedOnlyMetrics.covers(s.metric());
            if (s.metric() == null || !scrape.has(s.metric()) && !pairedOnly) {
                problems.add(where + ": metric " + s.metric() + " is not served by the agent");
                continue;
            }
            Set<String> labels = labelNames(s.metric(), scrape);
            if (pairedOnly && scrape.has(s.metric()) && !labels.containsAll(scrape.labelNames(s.metric()))) {
                problems.add(where + ": " + s.metric() + " is served with labels " + scrape.labelNames(s.metric())
                    + ", not the ones docs/reference.md gives it (" + labels + ")");
            }
            served.addAll(labels);
            for (PromQl.Matcher m : s.matchers()) {
                if (TARGET_LABELS.contains(m.label())) {
                    continue;
                }
                if (!labels.contains(m.label())) {
                    problems.add(where + ": " + s.metric() + " has no label " + m.label() + " (it has " + labels + ")");
                    continue;
                }
                if (m.value().contains("$")) {
                    continue; // a Grafana variable, filled in by the dashboard
                }
                Set<String> values = pairedOnly ? PairedOnlyMetrics.labelValues(scrape, m.label())
                    : scrape.labelValues(s.metric(), m.label());
                if (!LITERAL_ALTERNATION.matcher(m.value()).matches()) {
                    problems.add(where + ": " + m.label() + m.op() + "\"" + m.value() + "\" is not a value or list of values"
                        + " this check can verify");
                    continue;
                }
                for (String v : m.value().split("\\|")) {
                    if (!values.contains(v)) {
                        problems.add(where + ": " + s.metric() + " never has " + m.label() + "=\"" + v + "\" (served: " + values + ")");
                    }
                }
                if ((m.op().equals("=") || m.op().equals("!=")) && m.value().contains("|")) {
                    problems.add(where + ": " + m.label() + m.op() + "\"" + m.value() + "\" looks like a regex: use =~ or !~");
                }
            }
        }
        for (String g : query.groupingLabels()) {
            if (!served.contains(g)) {
                problems.add(where + ": groups by " + g + ", which none of its metrics carries");
            }
        }
        return problems;
    }

    /** The labels a query's result can carry: its grouping labels, or all labels of its metrics. */
    static Set<String> resultLabels(String expr, PrometheusScrape scrape) {
        PromQl.Query query = PromQl.parse(expr);
        Set<String> out = new HashSet<>(query.groupingLabels());
        if (out.isEmpty()) {
            out.addAll(TARGET_LABELS);
            query.selectors().forEach(s -> out.addAll(labelNames(s.metric(), scrape)));
        }
        return out;
    }

    /** The metric's label names: from the scrape, or from docs/reference.md for a paired-only one. */
    private static Set<String> labelNames(String metric, PrometheusScrape scrape) {
        return PairedOnlyMetrics.covers(metric) ? PairedOnlyMetrics.labelNames(metric) : scrape.labelNames(metric);
    }
}
