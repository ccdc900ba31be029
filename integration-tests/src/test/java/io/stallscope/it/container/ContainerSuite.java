package io.stallscope.it.container;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What every container test does first: no engine fails under CI, and is a visible skip elsewhere.
 * Either {@code @ExtendWith(ContainerSuite.class)} on the class or {@link #requireEngine()} in the test.
 */
public final class ContainerSuite implements BeforeEachCallback {
    private static volatile Boolean available;

    @Override
    public void beforeEach(ExtensionContext context) {
        requireEngine();
    }

    /** Call at the start of each test, so that the build's summary counts skips as skipped, not absent. */
    public static void requireEngine() {
        if (available == null) {
            available = ContainerEngine.available();
            if (!available && !ContainerEngine.required()) {
                System.err.println("[stallscope-it] SKIPPING container tests: " + ContainerEngine.missingMessage());
            }
        }
        if (!available && ContainerEngine.required()) {
            Assertions.fail("CI=true and " + ContainerEngine.missingMessage());
        }
        Assumptions.assumeTrue(available, ContainerEngine::missingMessage);
    }

    public static boolean engineMissing() {
        return available != null && !available;
    }
}
