package io.stallscope.it.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's start-up line in the broker log, cut to what the demo's reader needs: which Kafka, how
 * many points were instrumented, which mitigations are on (or not needed, and why), whether it captures.
 * The whole line (a thousand characters and more: every point by name) stays in the broker log.
 */
final class AgentStartLine {
    private static final Pattern HEAD = Pattern.compile("Stallscope \\S+ active \\([^)]*\\) in Kafka \\S+ on JDK \\S+: instrumented \\d+ of \\d+ points");
    private static final Pattern MITIGATIONS = Pattern.compile("mitigations (\\[[^\\]]*]|off)");
    private static final Pattern PROFILE = Pattern.compile("profile (on \\([^()]*\\)|off)");

    private AgentStartLine() {
    }

    /** The parts found, one per entry; the line itself, shortened, if it has none of them. */
    static List<String> summary(String line) {
        List<String> out = new ArrayList<>();
        for (Pattern p : List.of(HEAD, MITIGATIONS, PROFILE)) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                out.add(m.group());
            }
        }
        if (out.isEmpty()) {
            out.add(line.length() <= 300 ? line : line.substring(0, 296) + " ...");
        }
        return out;
    }
}
