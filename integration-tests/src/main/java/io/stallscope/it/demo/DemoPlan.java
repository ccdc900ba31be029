package io.stallscope.it.demo;

import java.time.Duration;

/**
 * How much load, for how long. The full plan keeps the whole demo (build, two brokers, capture,
 * report) under 5 minutes on 2 cores; the short one is for the test in CI.
 *
 * @param steady      the steady producer alone (JIT warm-up, and the calm before)
 * @param stall       the steady producer with the late consumer and the batch job (the measured phase)
 * @param steadyRate  records/s of 1 KiB, acks=all: the load whose latency is reported
 * @param batchRate   records/s of 1 KiB into the same partition: with 1 MiB segments, a roll every
 *                    1024/batchRate seconds
 * @param backlogMib  the history the late consumer reads from the start
 */
record DemoPlan(Duration steady, Duration stall, int steadyRate, int batchRate, int backlogMib) {
    static final DemoPlan FULL = new DemoPlan(Duration.ofSeconds(15), Duration.ofSeconds(30), 200, 2000, 256);
    static final DemoPlan SHORT = new DemoPlan(Duration.ofSeconds(4), Duration.ofSeconds(12), 200, 2000, 64);
    static final int RECORD_SIZE = 1024;
}
