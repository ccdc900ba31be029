package io.stallscope.it.realdisk;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JVM's own naming of the threads that held a safepoint up: with -XX:+SafepointTimeout, each sync longer than
 * SafepointTimeoutDelay prints "Threads which did not reach the safepoint:" and then one {@code # "NAME" #N ...} line
 * per thread on the JVM's stdout. An independent witness of the agent's "behind ... on thread" clause.
 */
final class SafepointTimeouts {
    private static final Pattern THREAD = Pattern.compile("# \"([^\"]+)\" #[0-9]+");

    private SafepointTimeouts() {
    }

    /** "N timeouts: request-handler 30, metadata-loader 1": the threads named, by their name without its number. */
    static String named(List<String> stdout) {
        int timeouts = 0;
        Map<String, Integer> byKind = new TreeMap<>();
        boolean inList = false;
        for (String line : stdout) {
            if (line.contains("Threads which did not reach the safepoint:")) {
                timeouts++;
                inList = true;
            } else if (line.contains("(End of list)")) {
                inList = false;
            } else if (inList) {
                Matcher m = THREAD.matcher(line);
                if (m.find()) {
                    byKind.merge(m.group(1).replaceAll("-?[0-9]+$", "").replace("data-plane-kafka-", ""), 1, Integer::sum);
                }
            }
        }
        StringBuilder sb = new StringBuilder().append(timeouts).append(" timeouts");
        byKind.forEach((k, n) -> sb.append(sb.indexOf(":") < 0 ? ": " : ", ").append(k).append(' ').append(n));
        return sb.toString();
    }
}
