package io.stallscope.it.mitigate;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The records that make a run's p99.9 (those at or above it: the slowest 0.1%), and what each was in
 * flight with: a stop of the broker's JVM, of the test JVM (the producer's), or neither (then a roll, the
 * two shared cores, or something else). Records in flight together make one event: at 2000 records/s a
 * 10 ms stall delays about 20, so p99.9 of 50000 records is the third or so largest event of the window.
 * Times are put on the wall clock from the window's start (nanoTime and currentTimeMillis read together),
 * as the JVMs' logs are; their stamps have ms resolution, hence the 1 ms of slack in {@link RollSpikeGcPauses}.
 * With a {@link RollSpikeRunQueue}: how long the produce path's threads waited for a CPU in each one's flight.
 */
record RollSpikeSlowRecords(int records, int events, int withBrokerStop, int withTestJvmStop, int neither,
                            double medianMs, double medianBrokerRunQueueMs, double medianProducerRunQueueMs,
                            List<String> slowest) {
    /** A stop of at least this long counts as one the record waited for. */
    private static final double STOP_MS = 1;

    static RollSpikeSlowRecords of(List<LatencyProducer.Sample> samples, double thresholdMs, long fromNanos,
                                   long fromMillis, RollSpikeGcPauses broker, RollSpikeGcPauses testJvm,
                                   RollSpikeRunQueue runQueue, int keep) {
        List<LatencyProducer.Sample> slow = new ArrayList<>(samples.stream()
            .filter(s -> s.latency() >= thresholdMs * 1e6).toList());
        slow.sort(Comparator.comparingLong(LatencyProducer.Sample::sentAt));
        int events = 0;
        double eventEnd = Double.NEGATIVE_INFINITY;
        int withBroker = 0;
        int withTest = 0;
        int neither = 0;
        List<String> annotated = new ArrayList<>();
        List<Double> latencies = new ArrayList<>();
        List<Double> brokerWaits = new ArrayList<>();
        List<Double> producerWaits = new ArrayList<>();
        for (LatencyProducer.Sample s : slow) {
            double sent = fromMillis + (s.sentAt() - fromNanos) / 1e6;
            double acked = sent + s.latency() / 1e6;
            if (sent > eventEnd) {
                events++;
            }
            eventEnd = Math.max(eventEnd, acked);
            double b = broker.stoppedMs(sent, acked);
            double t = testJvm.stoppedMs(sent, acked);
            withBroker += b >= STOP_MS ? 1 : 0;
            withTest += t >= STOP_MS ? 1 : 0;
            neither += b < STOP_MS && t < STOP_MS ? 1 : 0;
            latencies.add(s.latency() / 1e6);
            if (runQueue != null) {
                double[] w = runQueue.waitedMs(sent, acked);
                brokerWaits.add(w[0]);
                producerWaits.add(w[1]);
            }
        }
        slow.sort(Comparator.comparingLong(LatencyProducer.Sample::latency).reversed());
        for (LatencyProducer.Sample s : slow.subList(0, Math.min(keep, slow.size()))) {
            double sent = fromMillis + (s.sentAt() - fromNanos) / 1e6;
            double acked = sent + s.latency() / 1e6;
            String waited = "";
            if (runQueue != null) {
                double[] w = runQueue.waitedMs(sent, acked);
                waited = String.format("; waited for a CPU: broker %.1f, producer %.1f", w[0], w[1]);
            }
            annotated.add(String.format("%.1f ms @ %.3f s (stopped: broker %.1f, test JVM %.1f%s)", s.latency() / 1e6,
                (s.sentAt() - fromNanos) / 1e9, broker.stoppedMs(sent, acked), testJvm.stoppedMs(sent, acked), waited));
        }
        return new RollSpikeSlowRecords(slow.size(), events, withBroker, withTest, neither, median(latencies),
            median(brokerWaits), median(producerWaits), annotated);
    }

    private static double median(List<Double> v) {
        if (v.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = v.stream().sorted().toList();
        return sorted.size() % 2 == 1 ? sorted.get(sorted.size() / 2)
            : (sorted.get(sorted.size() / 2 - 1) + sorted.get(sorted.size() / 2)) / 2;
    }

    /** "records in events: with a broker stop / with a test-JVM stop / neither", and with a run queue the medians
     *  "latency ms, of it waited for a CPU: broker's threads / producer's ms". */
    @Override
    public String toString() {
        return String.format("%d in %d: %d / %d / %d", records, events, withBrokerStop, withTestJvmStop, neither)
            + (Double.isNaN(medianBrokerRunQueueMs) ? "" : String.format("; median %.1f ms, CPU wait %.1f / %.1f",
            medianMs, medianBrokerRunQueueMs, medianProducerRunQueueMs));
    }
}
