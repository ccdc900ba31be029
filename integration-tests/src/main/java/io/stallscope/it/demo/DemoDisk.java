package io.stallscope.it.demo;

import io.stallscope.it.broker.BrokerSpec;

/** The slow disk under one run of the demo's broker: a real one (root), or the shim's simulation. */
interface DemoDisk extends AutoCloseable {
    /** Puts the broker's data on this disk. */
    void applyTo(BrokerSpec.Builder spec);

    /** What the disk did during the run, for the screen, e.g. "62 fsyncs delayed, 6.2 s in all; ...". */
    String summary();

    /** Where the disk's own record of the run is, for the list of what the demo wrote; null if none. */
    String record();

    /**
     * The run's measurements are over: lets the broker's shutdown write at the device's own speed. A clean
     * shutdown flushes every log, and at the real disk's 20 write IOPS that took 25-30 s per broker (more than
     * the whole stall phase), for data the demo deletes right after.
     */
    default void unthrottle() {
    }

    /** Removes what the disk made (a real disk's loop device, mount and cgroup). */
    @Override
    void close();
}
