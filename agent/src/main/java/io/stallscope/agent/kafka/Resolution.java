package io.stallscope.agent.kafka;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one target resolved to in this JVM: the methods per class, or why there are none. */
public final class Resolution {
    /** Resolved; absent as the catalog expects for this version; or absent where it should be, or shaped otherwise. */
    public enum Status { RESOLVED, EXPECTEDLY_ABSENT, MISMATCHED }

    private final KafkaTarget target;
    private final Status status;
    private final Map<String, List<String>> methodsByClass;
    private final String reason;

    private Resolution(KafkaTarget target, Status status, Map<String, List<String>> methodsByClass, String reason) {
        this.target = target;
        this.status = status;
        this.methodsByClass = methodsByClass;
        this.reason = reason;
    }

    static Resolution resolved(KafkaTarget target, Map<String, List<String>> methodsByClass) {
        return new Resolution(target, Status.RESOLVED,
            Collections.unmodifiableMap(new LinkedHashMap<>(methodsByClass)), null);
    }

    static Resolution absent(KafkaTarget target, Status status, String reason) {
        return new Resolution(target, status, Collections.emptyMap(), reason);
    }

    public KafkaTarget target() {
        return target;
    }

    public Status status() {
        return status;
    }

    public boolean isResolved() {
        return status == Status.RESOLVED;
    }

    /** Class name to the matched methods' names and descriptors, in the catalog's order. */
    public Map<String, List<String>> methodsByClass() {
        return methodsByClass;
    }

    /** The first class declaring the method (the one a mitigation weaves), or null. */
    public String declaringClass() {
        return methodsByClass.isEmpty() ? null : methodsByClass.keySet().iterator().next();
    }

    /** Why it did not resolve: the catalog's note for an expected absence, or what was found instead. */
    public String reason() {
        return reason;
    }

    /** e.g. "kafka.log.LogSegment.flush()V", several joined with " + ". */
    public String methods() {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<String>> e : methodsByClass.entrySet()) {
            for (String m : e.getValue()) {
                if (sb.length() > 0) {
                    sb.append(" + ");
                }
                sb.append(e.getKey()).append('.').append(m);
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return target.name() + ": " + (isResolved() ? methods() : status + " (" + reason + ")");
    }
}
