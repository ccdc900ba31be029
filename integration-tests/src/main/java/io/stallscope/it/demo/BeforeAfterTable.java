package io.stallscope.it.demo;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The runs side by side over their stall phases: the steady producer's latencies (measured by the
 * client: what users feel), the network threads' sendfile p99 (KAFKA-7504: a network thread reading
 * cold data stalls every response queued behind it), and the producer-state snapshot on request
 * handlers (KAFKA-9693: before Kafka 3.7 its fsync runs in the roll, under the partition lock).
 */
final class BeforeAfterTable {
    private BeforeAfterTable() {
    }

    static String format(List<StallScenario.Result> results) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "| %-30s | %8s | %8s | %8s | %8s | %13s | %22s |%n", "run", "p50", "p99", "p99.9",
            "max", "net sendfile", "handler snapshot"));
        sb.append(String.format(Locale.ROOT, "| %-30s | %8s | %8s | %8s | %8s | %13s | %22s |%n", "", "produce", "produce",
            "produce", "produce", "p99<=", "count, max"));
        sb.append("|").append("-".repeat(32)).append(("|" + "-".repeat(10)).repeat(4)).append("|").append("-".repeat(15))
            .append("|").append("-".repeat(24)).append("|\n");
        for (StallScenario.Result r : results) {
            Optional<OpHistograms.Row> net = OpHistograms.find(r.ops(), "transfer_to", "network");
            sb.append(String.format(Locale.ROOT, "| %-30s | %8s | %8s | %8s | %8s | %13s | %22s |%n", r.label(),
                StallScenario.ms(r.producer().p50()), StallScenario.ms(r.producer().p99()), StallScenario.ms(r.producer().p999()),
                StallScenario.ms(r.producer().max()), net.map(n -> OpTable.human(n.p99())).orElse("none"), snapshot(r.ops())));
        }
        return sb.toString();
    }

    /**
     * Snapshot work on request handlers: snapshot_write (which holds the fsync before Kafka 3.7) and
     * snapshot_flush (the fsync alone, where the agent can time it apart).
     */
    private static String snapshot(List<OpHistograms.Row> ops) {
        long count = 0;
        double max = Double.NaN;
        boolean exact = true;
        for (String op : List.of("snapshot_write", "snapshot_flush")) {
            Optional<OpHistograms.Row> r = OpHistograms.find(ops, op, "request_handler");
            if (r.isPresent()) {
                count += r.get().count();
                if (Double.isNaN(max) || r.get().max() > max) {
                    max = r.get().max();
                    exact = r.get().maxExact();
                }
            }
        }
        return count == 0 ? "none" : count + ", " + (exact ? "" : "<=") + OpTable.human(max);
    }
}
