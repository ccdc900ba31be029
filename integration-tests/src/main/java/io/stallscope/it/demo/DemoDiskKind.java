package io.stallscope.it.demo;

import io.stallscope.it.realdisk.RealDisk;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Which slow disk the demo runs on: {@code --disk auto} takes a real one when this machine can make it
 * (root, loop devices, the cgroup I/O controller, mkfs.xfs) and says why not otherwise; {@code real} insists;
 * {@code simulated} is the LD_PRELOAD shim, which any machine can run.
 */
enum DemoDiskKind {
    REAL, SIMULATED;

    /** The kind for the option, and a note on the choice (empty when it needs none). */
    record Choice(DemoDiskKind kind, String note) {
    }

    static Choice choose(String option) {
        Optional<String> unavailable = RealDisk.unavailableReason();
        return switch (option) {
            case "real" -> {
                if (unavailable.isPresent()) {
                    throw new IllegalStateException("--disk real: " + unavailable.get());
                }
                yield new Choice(REAL, "");
            }
            case "simulated" -> new Choice(SIMULATED, "");
            case "auto" -> unavailable.map(why -> new Choice(SIMULATED, why + "; using the simulated one (--disk)"))
                .orElseGet(() -> new Choice(REAL, ""));
            default -> throw new IllegalArgumentException("--disk takes auto, real or simulated, not '" + option + "'");
        };
    }

    /** What the disk is, for the screen before the first run. */
    String describe(DemoTopics topics) {
        return this == REAL ? RealDemoDisk.describe() : SimulatedDisk.describe(topics);
    }

    /** A fresh disk for one broker run, its files under {@code runDir}. */
    DemoDisk create(DemoTopics topics, Path runDir) {
        return this == REAL ? new RealDemoDisk(runDir) : new SimulatedDisk(topics, runDir.resolve("slowdisk.log"));
    }
}
