package io.stallscope.agent.logdir;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** stallscope_log_dir_info{log_dir,fs_type,device} 1: one series per known log dir, for joins in PromQL and alerts. */
public final class LogDirMetrics implements LogDirListener {
    public static final String NAME = "stallscope.log.dir.info";
    private final MeterRegistry registry;

    public LogDirMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void learned(LogDirInfo info) {
        Gauge.builder(NAME, () -> 1)
            .tag("log_dir", info.logDir()).tag("fs_type", info.fsType()).tag("device", info.device())
            .description("A Kafka log dir and the file system it is on (value always 1)")
            .register(registry);
    }
}
