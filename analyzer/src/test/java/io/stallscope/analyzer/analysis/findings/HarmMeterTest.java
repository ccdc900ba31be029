package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Recording;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What a stall cost the clients: request-path time, weighted by how many stalled at once; background threads cost nothing. */
class HarmMeterTest {
    private static final long MS = 1_000_000L;
    /** Epoch nanos of 2026, as recordings carry them: the edge encoding must not overflow. */
    private static final long T0 = 1_795_800_000_000_000_000L;

    private final Recording rec = new Recording();
    private final int h1 = rec.thread(0, "data-plane-kafka-request-handler-1", 61, 0);
    private final int h2 = rec.thread(0, "data-plane-kafka-request-handler-2", 62, 0);
    private final int net = rec.thread(0, "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0", 63, 0);
    private final int sched = rec.thread(0, "kafka-scheduler-3", 64, 0);

    @Test
    void togetherCostsMoreThanOneAfterTheOther() {
        HarmMeter together = new HarmMeter(rec);
        together.add(h1, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        together.add(h2, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        HarmMeter apart = new HarmMeter(rec);
        apart.add(h1, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        apart.add(h2, T0 + 100 * MS, T0 + 200 * MS, Harm.RECORDED_WAIT);
        Harm t = together.measure();
        Harm a = apart.measure();
        assertThat(t.stalledNanos()).isEqualTo(a.stalledNanos()).isEqualTo(200 * MS);
        assertThat(t.peak()).isEqualTo(2);
        assertThat(a.peak()).as("touching intervals are not at once").isEqualTo(1);
        assertThat(t.score()).isEqualTo(2 * a.score());
        assertThat(t.text()).isEqualTo("2 request-path threads stalled 200.0 ms in all, up to 2 at once (from lock events)");
    }

    @Test
    void aThreadWaitingTwiceAtOnceCountsOnce() {
        HarmMeter m = new HarmMeter(rec);
        m.add(h1, T0, T0 + 100 * MS, Harm.RECORDED_WAIT);
        m.add(h1, T0 + 50 * MS, T0 + 150 * MS, Harm.SAMPLES);
        m.add(net, T0 + 140 * MS, T0 + 150 * MS, Harm.SAMPLES);
        Harm h = m.measure();
        assertThat(h.stalledNanos()).isEqualTo(160 * MS);
        assertThat(h.threads()).isEqualTo(2);
        assertThat(h.peak()).isEqualTo(2);
    }

    @Test
    void backgroundThreadsHurtNoClient() {
        HarmMeter m = new HarmMeter(rec);
        m.add(sched, T0, T0 + 2_600 * MS, Harm.SAMPLES);
        m.addUntimed(sched, 500 * MS, Harm.RECORDED_WAIT);
        assertThat(m.measure()).isEqualTo(Harm.NONE);
        assertThat(m.measure().hurt()).isFalse();
    }

    @Test
    void pastTheBoundEachIntervalCountsAsIfAlone() {
        HarmMeter m = new HarmMeter(rec);
        for (int i = 0; i < HarmMeter.MAX_INTERVALS + 10; i++) m.add(i % 2 == 0 ? h1 : h2, T0 + i * MS, T0 + i * MS + MS, Harm.RECORDED_WAIT);
        Harm h = m.measure();
        assertThat(h.stalledNanos()).isEqualTo((HarmMeter.MAX_INTERVALS + 10) * MS);
        assertThat(h.score()).as("no interval overlaps another: n = 1 throughout").isEqualTo((double) h.stalledNanos());
    }
}
