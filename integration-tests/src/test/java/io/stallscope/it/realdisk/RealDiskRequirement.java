package io.stallscope.it.realdisk;

import org.junit.jupiter.api.Assumptions;

/**
 * Every real-disk test starts here: without root, loop devices, mkfs.xfs or the cgroup I/O controller it
 * fails under CI=true (scripts/provision.sh installs what can be installed) and is a skip, with the reason
 * printed, elsewhere.
 */
public final class RealDiskRequirement {
    private RealDiskRequirement() {
    }

    public static void assumeAvailable() {
        RealDisk.unavailableReason().ifPresent(why -> {
            if ("true".equals(System.getenv("CI"))) {
                throw new AssertionError("CI=true and " + why);
            }
            System.err.println("SKIPPED: " + why);
            Assumptions.abort(why);
        });
    }
}
