package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.List;

/**
 * What a finding cost the clients: the time request-path threads (request handlers, network threads, replica
 * fetchers) spent stalled in it, and {@code score}, that time weighted by how many of them stalled at once (the
 * integral of n(t)^2 over the stall: eight handlers stalled together for 100 ms leave no handler to serve anyone,
 * eight stalled one after the other leave seven). {@code sources}: bits of {@link #RECORDED_WAIT}, {@link #SPAN},
 * {@link #SAMPLES}, {@link #INFERRED_WAIT}: what the stalled time was read from.
 */
public record Harm(long stalledNanos, int threads, int peak, double score, int sources) {
    public static final int RECORDED_WAIT = 1, SPAN = 2, SAMPLES = 4, INFERRED_WAIT = 8;
    public static final Harm NONE = new Harm(0, 0, 0, 0, 0);

    public boolean hurt() {
        return score > 0;
    }

    /** "6 request-path threads stalled 4.2 s in all, up to 5 at once (from lock events, agent spans)". */
    public String text() {
        if (!hurt()) return "no request handler, network thread or replica fetcher stalled in it";
        return String.format("%s stalled %s in all, up to %d at once (from %s)", Counts.of(threads, "request-path thread"),
            Durations.text(stalledNanos), peak, String.join(", ", sourceNames()));
    }

    public List<String> sourceNames() {
        List<String> out = new ArrayList<>();
        if ((sources & RECORDED_WAIT) != 0) out.add("lock events");
        if ((sources & SPAN) != 0) out.add("agent spans");
        if ((sources & INFERRED_WAIT) != 0) out.add("waits inferred from samples");
        if ((sources & SAMPLES) != 0) out.add("samples");
        return out;
    }
}
