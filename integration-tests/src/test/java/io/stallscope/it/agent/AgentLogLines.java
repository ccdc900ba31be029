package io.stallscope.it.agent;

/**
 * Picks the agent's lines out of a broker log by its logger name, which Kafka's log4j layouts print
 * last as "(stallscope)". Matching the word anywhere would also match Kafka's own lines whenever a
 * path (a clone of this repository, say) contains it.
 */
final class AgentLogLines {
    private AgentLogLines() {
    }

    static boolean isAgentLine(String line) {
        return line.endsWith("(stallscope)");
    }
}
