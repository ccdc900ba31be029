package io.stallscope.agent.runtime;

import io.stallscope.agent.instrument.PointPlan;

import java.util.ArrayList;
import java.util.List;

/** Composes the one start-up line: what the agent instrumented, what it skipped and why, what it serves. */
final class StartupReport {
    private StartupReport() {
    }

    static String line(String how, List<PointPlan> plans, List<String> services, List<String> problems) {
        List<String> done = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (PointPlan plan : plans) {
            if (plan.isMatched()) {
                done.add(plan.point().opName() + "=" + plan.target());
            } else {
                skipped.add(plan.point().opName() + " (" + plan.skipReason() + ")");
            }
        }
        StringBuilder sb = new StringBuilder(512);
        sb.append("Stallscope ").append(Environment.agentVersion()).append(' ').append(how)
            .append(" in Kafka ").append(Environment.kafkaVersion())
            .append(" on JDK ").append(Environment.jdkVersion())
            .append(": instrumented ").append(done.size()).append(" of ").append(plans.size()).append(" points [")
            .append(String.join(", ", done)).append(']');
        if (!skipped.isEmpty()) {
            sb.append("; skipped [").append(String.join("; ", skipped)).append(']');
        }
        sb.append("; ").append(String.join(", ", services));
        if (!problems.isEmpty()) {
            sb.append("; problems [").append(String.join("; ", problems)).append(']');
        }
        return sb.toString();
    }
}
