package io.stallscope.agent.instrument;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What resolution found for one point: the methods to advise per class, or why it is skipped. */
public final class PointPlan {
    private final InstrumentationPoint point;
    private final Map<String, List<String>> methodsByType;
    private final String skipReason;

    private PointPlan(InstrumentationPoint point, Map<String, List<String>> methodsByType, String skipReason) {
        this.point = point;
        this.methodsByType = methodsByType;
        this.skipReason = skipReason;
    }

    static PointPlan matched(InstrumentationPoint point, Map<String, List<String>> methodsByType) {
        return new PointPlan(point, Collections.unmodifiableMap(new LinkedHashMap<>(methodsByType)), null);
    }

    static PointPlan skipped(InstrumentationPoint point, String reason) {
        return new PointPlan(point, Collections.emptyMap(), reason);
    }

    public InstrumentationPoint point() {
        return point;
    }

    public boolean isMatched() {
        return skipReason == null;
    }

    public Map<String, List<String>> methodsByType() {
        return methodsByType;
    }

    public String skipReason() {
        return skipReason;
    }

    /** e.g. "kafka.log.LogSegment.flush()V" or two classes joined with '+'. */
    public String target() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<String>> e : methodsByType.entrySet()) {
            for (String m : e.getValue()) {
                if (sb.length() > 0) {
                    sb.append(" + ");
                }
                sb.append(e.getKey()).append('.').append(m);
            }
        }
        return sb.toString();
    }
}
