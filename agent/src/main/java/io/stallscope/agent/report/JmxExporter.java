package io.stallscope.agent.report;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.ThreadRole;

import io.stallscope.agent.jmx.MBeanRegistrations;

import javax.management.ObjectName;

/**
 * Registers one MBean per op and thread role, reading the same histograms Prometheus scrapes. (Micrometer's
 * JMX registry would record every call a second time, into a Dropwizard reservoir that takes a lock.)
 */
public final class JmxExporter implements AutoCloseable {
    static final String DOMAIN = "io.stallscope";
    private final MBeanRegistrations registrations = new MBeanRegistrations();

    public JmxExporter(OpMetrics metrics) throws Exception {
        for (int op = 0; op < Op.COUNT; op++) {
            for (ThreadRole role : ThreadRole.values()) {
                registrations.register(new ObjectName(DOMAIN + ":type=OpStats,op=" + Op.name(op) + ",role=" + role.label()),
                    new OpStats(metrics.histogram(op, role.ordinal())), OpStatsMBean.class);
            }
        }
    }

    @Override
    public void close() {
        registrations.close();
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
