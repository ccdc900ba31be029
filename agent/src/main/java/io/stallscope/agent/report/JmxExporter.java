package io.stallscope.agent.report;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.ThreadRole;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Registers one MBean per op and thread role, reading the same histograms Prometheus scrapes. (Micrometer's
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
                server.registerMBean(new javax.management.StandardMBean(new OpStats(metrics.histogram(op, role.ordinal())),
                    OpStatsMBean.class), name);
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
        private final OpHistogram histogram;

        OpStats(OpHistogram histogram) {
            this.histogram = histogram;
        }

        @Override
        public long getCount() {
            return histogram.count();
        }

        @Override
        public double getTotalSeconds() {
            return histogram.sumNanos() / 1e9;
        }

        @Override
        public double getMeanSeconds() {
            long n = histogram.count();
            return n == 0 ? 0 : histogram.sumNanos() / 1e9 / n;
        }

        @Override
        public double getMaxSeconds() {
            return histogram.maxNanos() / 1e9;
        }

        @Override
        public double getP99Seconds() {
            return histogram.quantileUpperBoundSeconds(0.99);
        }
    }
}
