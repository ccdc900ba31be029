package io.stallscope.agent.mitigate;

import net.bytebuddy.asm.AsmVisitorWrapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The visitors a mitigation applies, per class name; several mitigations may touch one class. */
final class Transformations {
    private final Map<String, List<AsmVisitorWrapper>> byType = new LinkedHashMap<>();

    Transformations add(String typeName, AsmVisitorWrapper visitor) {
        byType.computeIfAbsent(typeName, k -> new ArrayList<>()).add(visitor);
        return this;
    }

    void addAll(Transformations other) {
        other.byType.forEach((type, visitors) -> visitors.forEach(v -> add(type, v)));
    }

    Map<String, List<AsmVisitorWrapper>> byType() {
        return byType;
    }
}
