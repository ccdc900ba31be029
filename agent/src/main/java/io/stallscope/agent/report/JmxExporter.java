package io.stallscope.agent.report;

import io.stallscope.agent.jmx.MBeanRegistrations;

import javax.management.ObjectName;
import java.util.function.BiConsumer;

/**
 * Registers one MBean per op and thread role, reading the same histograms Prometheus scrapes. (Micrometer's
 * JMX registry would record every call a second time, into a Dropwizard reservoir that takes a lock.)
 */
public final class JmxExporter implements AutoCloseable {
    static final String DOMAIN = "io.stallscope";
    private final MBeanRegistrations registrations = new MBeanRegistrations();
    private final BiConsumer<String[], OpHistogram> onNewSeries = this::registerQuietly;
    private final OpMetrics metrics;

    /** Registers the MBeans of the op and role pairs that have series, and of each pair that occurs later. */
    public JmxExporter(OpMetrics metrics) throws Exception {
        this.metrics = metrics;
        metrics.addSeriesListener(onNewSeries);
        try {
            for (OpMetrics.Labelled h : metrics.histograms()) {
                register(h.op(), h.role(), h.histogram());
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private void register(String op, String role, OpHistogram histogram) throws Exception {
        registrations.register(new ObjectName(DOMAIN + ":type=OpStats,op=" + op + ",role=" + role),
            new OpStats(histogram), OpStatsMBean.class);
    }

    /** A pair's first op, on a broker thread: a failed registration only leaves that MBean out. */
    private void registerQuietly(String[] labels, OpHistogram histogram) {
        try {
            register(labels[0], labels[1], histogram);
        } catch (Exception ignored) {
            // the series is still in Prometheus; JMX is the secondary view
        }
    }

    @Override
    public void close() {
        metrics.removeSeriesListener(onNewSeries);
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
