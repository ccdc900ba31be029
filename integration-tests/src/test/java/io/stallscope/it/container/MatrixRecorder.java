package io.stallscope.it.container;

import io.stallscope.it.broker.KafkaJdks;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Records each invocation of a container test that runs on the default JDK in one column of
 * {@link VersionMatrix#RUN}: the row is the Kafka version named in the invocation's display name
 * ("Kafka 3.6.2, SSL, prefetch true, JDK 17"; no JDK named: the default one), the cell lists what followed the version and whether it passed,
 * so tests written once for both broker kinds (see {@link BrokerFactory}) show up in docs/containers.md's table.
 */
public final class MatrixRecorder implements TestWatcher {
    private static final Pattern VERSION = Pattern.compile("Kafka (\\d+\\.\\d+\\.\\d+)(?:, )?(.*?)(?:, JDK (\\w+))?");
    private final String column;
    private final Map<String, Map<String, String>> cells = new TreeMap<>();

    public MatrixRecorder(String column) {
        this.column = column;
    }

    @Override
    public void testSuccessful(ExtensionContext context) {
        record(context, "passed");
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        String m = String.valueOf(cause.getMessage()).strip();
        int nl = m.indexOf('\n');
        String line = nl < 0 ? m : m.substring(0, nl);
        record(context, "FAILED: " + (line.length() > 100 ? line.substring(0, 97) + "..." : line));
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        // a skip (no engine outside CI) claims nothing
    }

    private synchronized void record(ExtensionContext context, String outcome) {
        Matcher m = VERSION.matcher(context.getDisplayName());
        if (!m.matches()) {
            return;
        }
        // "JDK newest" in a display name means the newest JDK of the machine; none or a number, that JDK
        String named = m.group(3);
        String jdk = "newest".equals(named)
            ? KafkaJdks.featureVersion(KafkaJdks.newest()).map(String::valueOf).orElse("newest")
            : named != null ? named : KafkaJdks.featureVersion(KafkaJdks.defaultJdk()).map(String::valueOf).orElse("default");
        Map<String, String> row = cells.computeIfAbsent(m.group(1) + "|" + jdk, v -> new LinkedHashMap<>());
        row.put(m.group(2), outcome);
        StringBuilder cell = new StringBuilder();
        row.forEach((what, result) -> cell.append(cell.length() == 0 ? "" : "; ")
            .append(what.isEmpty() ? result : what + ": " + result));
        VersionMatrix.RUN.record(m.group(1), jdk, column, cell.toString());
    }
}
