package io.stallscope.agent.mitigate;

/** A mitigation woven as advice: what the start-up line says of it, and its advice per class (none when skipped). */
abstract class WovenMitigation {
    private final String description;
    final Transformations transformations = new Transformations();

    WovenMitigation(String description) {
        this.description = description;
    }

    boolean applies() {
        return !transformations.byType().isEmpty();
    }

    String describe() {
        return description;
    }

    Transformations transformations() {
        return transformations;
    }
}
