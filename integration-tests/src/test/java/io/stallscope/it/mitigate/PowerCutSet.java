package io.stallscope.it.mitigate;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.examples.AgentOptionParser;

import java.time.Duration;

/**
 * The mitigation sets a power-cut run compares, as agent options: none (no agent at all), roll-flush, and
 * segment-flush-delay (20 s). The last is taken only while the agent under test still applies
 * mitigate.segment.flush.delay, asked of the agent's own option parser in the jar the brokers load: an agent
 * that removed it (and ignores it, saying why) or refuses it makes the set refused, never run as something else.
 * It stays for an agent built from before the removal, to show the hole again.
 */
final class PowerCutSet {
    static final Duration FLUSH_DELAY = Duration.ofSeconds(20);

    private PowerCutSet() {
    }

    /** The agent's options for the set, or null for none. */
    static String agentOptions(String set) throws Exception {
        return switch (set) {
            case "none" -> null;
            case "roll-flush" -> "mitigate=roll-flush";
            case "segment-flush-delay" -> accepted("mitigate.segment.flush.delay=" + FLUSH_DELAY.toSeconds() + "s");
            default -> throw new IllegalArgumentException("unknown stallscope.powercut.set '" + set
                + "': none, roll-flush or segment-flush-delay");
        };
    }

    private static String accepted(String options) throws Exception {
        try (AgentOptionParser parser = new AgentOptionParser(AgentJar.path())) {
            AgentOptionParser.Result r = parser.parse(options);
            if (!r.ok()) {
                throw new IllegalArgumentException("set segment-flush-delay: the agent at " + AgentJar.path()
                    + " refuses '" + options + "' (" + r.error() + ")");
            }
            if (!r.ignored().isEmpty()) {
                throw new IllegalArgumentException("set segment-flush-delay: the agent at " + AgentJar.path()
                    + " no longer applies it: " + r.ignored());
            }
            return options;
        }
    }
}
