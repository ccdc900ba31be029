package io.stallscope.it.mitigate;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The broker's own JMX over loopback (no auth: a test broker on 127.0.0.1): Kafka's request metrics for
 * Produce, to split the produce latency into where a request waited on the broker (the roll-spike and
 * slow-line benches).
 */
public final class BrokerJmx implements AutoCloseable {
    /** Kafka's names for the parts of a request's time on the broker, then the whole. */
    static final List<String> PARTS = List.of("RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs",
        "ResponseQueueTimeMs", "ResponseSendTimeMs", "TotalTimeMs");

    private final JMXConnector connector;
    final MBeanServerConnection connection;

    private BrokerJmx(JMXConnector connector) throws Exception {
        this.connector = connector;
        this.connection = connector.getMBeanServerConnection();
    }

    /** JVM arguments that open the broker's JMX on {@code port}, bound to 127.0.0.1. */
    public static List<String> jvmArgs(int port) {
        return List.of("-Dcom.sun.management.jmxremote.port=" + port, "-Dcom.sun.management.jmxremote.rmi.port=" + port,
            "-Dcom.sun.management.jmxremote.host=127.0.0.1", "-Djava.rmi.server.hostname=127.0.0.1",
            "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false");
    }

    public static BrokerJmx connect(int port) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
        return new BrokerJmx(JMXConnectorFactory.connect(url));
    }

    /** One reading of a request metric: count, mean, and the reservoir's p99 and p99.9 (ms). */
    public record Reading(double count, double mean, double p99, double p999) {
        /** The mean over the requests between an earlier reading and this one (exact: count and mean are all-time). */
        public double meanSince(Reading earlier) {
            double n = count - earlier.count;
            return n <= 0 ? Double.NaN : (count * mean - earlier.count * earlier.mean) / n;
        }
    }

    /** Kafka's RequestMetrics for Produce, by part. */
    public Map<String, Reading> produce() throws Exception {
        Map<String, Reading> out = new LinkedHashMap<>();
        for (String part : PARTS) {
            ObjectName n = new ObjectName("kafka.network:type=RequestMetrics,name=" + part + ",request=Produce");
            out.put(part, new Reading(number(n, "Count"), number(n, "Mean"), number(n, "99thPercentile"),
                number(n, "999thPercentile")));
        }
        return out;
    }

    private double number(ObjectName n, String attribute) throws Exception {
        return ((Number) connection.getAttribute(n, attribute)).doubleValue();
    }

    @Override
    public void close() throws Exception {
        connector.close();
    }
}
