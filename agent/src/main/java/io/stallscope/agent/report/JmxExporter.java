package io.stallscope.agent.report;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.ThreadRole;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Registers one MBean per op and thread role, reading the same timers Prometheus scrapes. (Micrometer's
 * JMX registry would record every call a second time, into a Dropwizard reservoir that takes a lock.)
 */
public final class JmxExporter implements AutoCloseable {
    static final String DOMAIN = "io.stallscope";
    private final List<ObjectName> registered = new ArrayList<>();

    public JmxExporter(OpMetrics metrics) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (int op = 0; op < Op.COUNT; op++) {
            for (ThreadRole role : ThreadRole.values()) {
                ObjectName name = new ObjectName(DOMAIN + ":type=OpStats,op=" + Op.name(op) + ",role=" + role.label());
                if (server.isRegistered(name)) {
                    server.unregisterMBean(name);
                }
                server.registerMBean(new javax.management.StandardMBean(new OpStats(metrics.timer(op, role.ordinal())), OpStatsMBean.class), name);
                registered.add(name);
            }
        }
    }

    @Override
    public void close() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName name : registered) {
            try {
                server.unregisterMBean(name);
            } catch (Exception ignored) {
                // already gone
            }
        }
        registered.clear();
    }

    static final class OpStats implements OpStatsMBean {
        private final Timer timer;

        OpStats(Timer timer) {
            this.timer = timer;
        }

        @Override
        public long getCount() {
            return timer.count();
        }

        @Override
        public double getTotalSeconds() {
            return timer.totalTime(TimeUnit.SECONDS);
        }

        @Override
        public double getMeanSeconds() {
            return timer.mean(TimeUnit.SECONDS);
        }

        @Override
        public double getMaxSeconds() {
            return timer.max(TimeUnit.SECONDS);
        }

        @Override
        public double getP99Seconds() {
            HistogramSnapshot snapshot = timer.takeSnapshot();
            double target = snapshot.count() * 0.99;
            for (CountAtBucket bucket : snapshot.histogramCounts()) {
                if (bucket.count() >= target && snapshot.count() > 0) {
                    return bucket.bucket(TimeUnit.SECONDS);
                }
            }
            return snapshot.count() == 0 ? 0 : snapshot.max(TimeUnit.SECONDS);
        }
    }
}
