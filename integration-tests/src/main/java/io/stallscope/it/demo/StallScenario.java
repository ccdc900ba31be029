package io.stallscope.it.demo;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * One run of the story against a broker: a steady producer; then a consumer that starts from the
 * beginning of a cold backlog, and a batch job writing into the producer's partition (a stream of
 * segment rolls). The live table shows the agent's op latencies since the phase began, refreshed every
 * second; the result is the steady producer's latencies and the agent's ops over the stall phase.
 */
final class StallScenario {
    /** What one run measured over its stall phase. */
    record Result(String label, Instant stallStart, LatencyLog.Stats producer, List<OpHistograms.Row> ops,
                  long producerFailures, double catchUpMib, double catchUpSeconds, boolean caughtUp, String mitigations) {
    }

    private static final Duration TICK = Duration.ofSeconds(1);
    private static final Duration RECENT = Duration.ofSeconds(5);

    private final DemoPlan plan;
    private final DemoTopics topics;
    private final LiveView view;
    private final Duration slow;

    StallScenario(DemoPlan plan, DemoTopics topics, LiveView view, Duration slow) {
        this.plan = plan;
        this.topics = topics;
        this.view = view;
        this.slow = slow;
    }

    /**
     * @param csv     where to write the steady producer's latency per record (from the steady phase on)
     * @param atStall run when the stall phase begins (an on-demand capture), or null
     */
    Result run(DemoTarget target, String label, Path csv, Runnable atStall) throws Exception {
        String bootstrap = target.bootstrap();
        view.note(String.format(Locale.ROOT, "demo: [%s] writing a backlog of %d MiB into %s ...", label, plan.backlogMib(),
            topics.backlog));
        BacklogWriter.write(ClientConfigs.bulkProducer(bootstrap, "demo-backlog-writer"), topics.backlog, plan.backlogMib());
        view.note("demo: [" + label + "] " + target.coolBacklog(topics));
        LatencyLog latencies = new LatencyLog();
        try (PacedProducer steady = new PacedProducer(ClientConfigs.latencyProducer(bootstrap, "demo-steady"), topics.orders,
            plan.steadyRate(), DemoPlan.RECORD_SIZE, latencies)) {
            view.note(String.format(Locale.ROOT, "demo: [%s] phase 1, steady load: %d records/s of 1 KiB into %s, acks=all,"
                + " for %d s", label, plan.steadyRate(), topics.orders, plan.steady().toSeconds()));
            OpHistograms start = target.metrics().histograms();
            long steadyStart = System.nanoTime();
            watch(target, label + ", steady load", start, steadyStart, plan.steady(), latencies, null, steady);

            view.note(String.format(Locale.ROOT, "demo: [%s] phase 2, the stall: a late consumer reads %s from the start,"
                + " and a batch job writes %d records/s into %s (a segment roll every %.1f s), for %d s", label, topics.backlog,
                plan.batchRate(), topics.orders, 1024.0 / plan.batchRate(), plan.stall().toSeconds()));
            OpHistograms before = target.metrics().histograms();
            long t0 = System.nanoTime();
            Instant stallStart = Instant.now();
            if (atStall != null) {
                atStall.run();
            }
            long t1;
            double mib;
            double seconds;
            boolean caughtUp;
            try (CatchUpConsumer consumer = new CatchUpConsumer(ClientConfigs.consumer(bootstrap, "demo-late-consumer"),
                topics.backlog);
                 PacedProducer batch = new PacedProducer(ClientConfigs.bulkProducer(bootstrap, "demo-batch-job"),
                     topics.orders, plan.batchRate(), DemoPlan.RECORD_SIZE, null)) {
                watch(target, label + ", the stall", before, t0, plan.stall(), latencies, consumer, steady);
                t1 = System.nanoTime();
                mib = consumer.bytesRead() / (double) (1 << 20);
                seconds = consumer.seconds();
                caughtUp = consumer.caughtUp();
                if (consumer.error() != null) {
                    view.note("demo: [" + label + "] the late consumer failed: " + consumer.error());
                }
            }
            String mitigations = MetricsEndpoint.mitigationSummary(target.metrics().scrape());
            List<OpHistograms.Row> ops = target.metrics().histograms().since(before);
            steady.close(); // waits for the last acknowledgements of the stall phase
            if (steady.failed() > 0) {
                view.note("demo: [" + label + "] " + steady.failed() + " records of the steady producer failed: " + steady.lastError());
            }
            latencies.writeCsv(csv, steadyStart);
            view.note(String.format(Locale.ROOT, "demo: [%s] the steady producer's latency per record: %s (the stall phase"
                + " began at %.1f s)", label, csv, (t0 - steadyStart) / 1e9));
            return new Result(label, stallStart, latencies.between(t0, t1), ops, steady.failed(), mib, seconds, caughtUp, mitigations);
        }
    }

    /** Redraws the live view every second for {@code length}. */
    private void watch(DemoTarget target, String title, OpHistograms phaseStart, long t0, Duration length, LatencyLog latencies,
                       CatchUpConsumer consumer, PacedProducer steady) throws InterruptedException {
        long end = t0 + length.toNanos();
        while (true) {
            long now = System.nanoTime();
            String block = block(target, title, phaseStart, t0, now, length, latencies, consumer, steady);
            if (now >= end) {
                view.finish(block);
                return;
            }
            view.show(block);
            Thread.sleep(Math.min(TICK.toMillis(), Math.max(1, (end - now) / 1_000_000)));
        }
    }

    private String block(DemoTarget target, String title, OpHistograms phaseStart, long t0, long now, Duration length,
                         LatencyLog latencies, CatchUpConsumer consumer, PacedProducer steady) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "-- %s, %d/%d s: the agent's op latencies since the phase began --%n", title,
            (now - t0) / 1_000_000_000L, length.toSeconds()));
        sb.append(OpTable.format(target.metrics().histograms().since(phaseStart), slow));
        LatencyLog.Stats recent = latencies.between(Math.max(t0, now - RECENT.toNanos()), now);
        LatencyLog.Stats phase = latencies.between(t0, now);
        sb.append(String.format(Locale.ROOT, "steady producer: last %d s p50 %s p99 %s max %s | phase p99 %s max %s%n",
            RECENT.toSeconds(), ms(recent.p50()), ms(recent.p99()), ms(recent.max()), ms(phase.p99()), ms(phase.max())));
        if (consumer != null) {
            sb.append(String.format(Locale.ROOT, "late consumer: %.0f of %d MiB read%s%n", consumer.bytesRead() / (double) (1 << 20),
                plan.backlogMib(), consumer.caughtUp() ? String.format(Locale.ROOT, ", caught up in %.1f s", consumer.seconds()) : ""));
        }
        return sb.toString();
    }

    static String ms(double millis) {
        if (Double.isNaN(millis)) {
            return "-";
        }
        return String.format(Locale.ROOT, millis < 10 ? "%.1f ms" : "%.0f ms", millis);
    }
}
