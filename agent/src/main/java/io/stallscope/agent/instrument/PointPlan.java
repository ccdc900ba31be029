package io.stallscope.agent.instrument;

import io.stallscope.agent.kafka.Resolution;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/** What is done with one point: its target's resolution, or why it was not looked at (an option, a prerequisite). */
public final class PointPlan {
    private final InstrumentationPoint point;
    private final Resolution resolution;
    private final String disabledBecause;

    private PointPlan(InstrumentationPoint point, Resolution resolution, String disabledBecause) {
        this.point = point;
        this.resolution = resolution;
        this.disabledBecause = disabledBecause;
    }

    public static PointPlan of(InstrumentationPoint point, Resolution resolution) {
        return new PointPlan(point, resolution, null);
    }

    public static PointPlan disabled(InstrumentationPoint point, String reason) {
        return new PointPlan(point, null, reason);
    }

    public InstrumentationPoint point() {
        return point;
    }

    public boolean isMatched() {
        return resolution != null && resolution.isResolved();
    }

    public Map<String, List<String>> methodsByType() {
        return isMatched() ? resolution.methodsByClass() : Collections.emptyMap();
    }

    /** Why the point is off: disabled, absent as the catalog expects (why), or mismatched (what was found). */
    public String skipReason() {
        if (resolution == null) {
            return disabledBecause;
        }
        return isMatched() ? null : resolution.reason();
    }

    /** The advised methods, class.method plus descriptor, several joined with " + ". */
    public String target() {
        return resolution == null ? "" : resolution.methods();
    }
}
