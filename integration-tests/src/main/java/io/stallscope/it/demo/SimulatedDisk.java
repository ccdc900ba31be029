package io.stallscope.it.demo;

import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The slow disk the demo's broker runs on. There is no slow disk here: the LD_PRELOAD shim
 * (integration-tests/src/main/c/slowdisk.c) makes the real calls wait first, for the demo's topics only.
 */
final class SimulatedDisk implements DemoDisk {
    static final Duration FSYNC = Duration.ofMillis(100);
    static final Duration COLD_READ = Duration.ofMillis(5);
    static final Duration COLD_READ_PER_MIB = Duration.ofMillis(40);

    private final SlowDisk shim;

    SimulatedDisk(DemoTopics topics, Path log) {
        this.shim = SlowDisk.logTo(log)
            .slowFsync("/" + topics.orders + "-[0-9]+/", FSYNC)
            .slowColdReads("/" + topics.backlog + "-[0-9]+/[0-9]+\\.log$", COLD_READ, COLD_READ_PER_MIB);
    }

    @Override
    public void applyTo(io.stallscope.it.broker.BrokerSpec.Builder spec) {
        shim.applyTo(spec);
    }

    @Override
    public String record() {
        return "simulated disk's log of delayed calls: " + shim.log();
    }

    @Override
    public void close() {
        // nothing made: the shim lives in the broker's process
    }

    /** What is simulated, for the screen. */
    static String describe(DemoTopics topics) {
        return String.format(Locale.ROOT, "simulated slow disk (LD_PRELOAD shim, not a real disk): every fsync of a file of %s"
                + " waits %d ms first; a sendfile/pread of %s segments that reads pages not in the page cache waits %d ms"
                + " + %d ms per cold MiB (a busy disk, about 25 MiB/s; readahead off for those files); the backlog's"
                + " rolled segments are evicted from the page cache before the catch-up",
            topics.orders, FSYNC.toMillis(), topics.backlog, COLD_READ.toMillis(), COLD_READ_PER_MIB.toMillis());
    }

    /** What the shim did, from its log: e.g. "62 fsyncs delayed 6.2 s in all; 260 cold reads delayed 11.3 s". */
    @Override
    public String summary() {
        try {
            List<ShimCall> calls = shim.calls();
            long fsyncs = calls.stream().filter(c -> c.call().contains("sync") && c.delayed()).count();
            double fsyncMs = calls.stream().filter(c -> c.call().contains("sync")).mapToDouble(ShimCall::delayMs).sum();
            long reads = calls.stream().filter(c -> !c.call().contains("sync") && c.delayed()).count();
            double readMs = calls.stream().filter(c -> !c.call().contains("sync")).mapToDouble(ShimCall::delayMs).sum();
            double coldMib = calls.stream().mapToLong(ShimCall::coldBytes).sum() / (double) (1 << 20);
            return String.format(Locale.ROOT, "simulated disk: %d fsyncs delayed, %.1f s in all; %d cold reads (%.0f MiB) delayed, %.1f s in all",
                fsyncs, fsyncMs / 1000, reads, coldMib, readMs / 1000);
        } catch (IOException e) {
            return "(cannot read the shim's log " + shim.log() + ": " + e.getMessage() + ")";
        }
    }
}
