package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaClients;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One arm of the roll-spike bench: what the broker runs with. The floor arms are controls with the same
 * load: what this machine contributes to the producer's tail with no injected fsync delay, and with no
 * roll at all.
 */
enum RollSpikeArm {
    OFF("off", Duration.ofMillis(50), true, ""),
    ROLL_FLUSH("roll-flush", Duration.ofMillis(50), true, "mitigate=roll-flush"),
    /** The agent jar named by -Dstallscope.bench.baseline.jar (an earlier build), to compare a change; also below. */
    ROLL_FLUSH_BASELINE("roll-flush-baseline", Duration.ofMillis(50), true, "mitigate=roll-flush"),
    FLOOR_NO_DELAY("floor-no-delay", Duration.ZERO, true, ""),
    FLOOR_NO_ROLL("floor-no-roll", Duration.ZERO, false, "");

    /** 1 GiB segments: nothing rolls in a run (about 80 MB produced). */
    private static final Map<String, String> NO_ROLL = Map.of("segment.bytes", "1073741824");

    final String label;
    final Duration fsyncDelay;
    final boolean rolls;
    final String agentOptions;

    RollSpikeArm(String label, Duration fsyncDelay, boolean rolls, String agentOptions) {
        this.label = label;
        this.fsyncDelay = fsyncDelay;
        this.rolls = rolls;
        this.agentOptions = agentOptions;
    }

    Map<String, String> topicConfig() {
        return rolls ? KafkaClients.SMALL_SEGMENTS : NO_ROLL;
    }

    boolean baseline() {
        return this == ROLL_FLUSH_BASELINE;
    }

    static RollSpikeArm of(String label) {
        return Arrays.stream(values()).filter(a -> a.label.equals(label)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no arm " + label + "; arms: "
                + Arrays.stream(values()).map(a -> a.label).toList()));
    }

    static List<RollSpikeArm> parse(String labels) {
        return Arrays.stream(labels.split(",")).map(String::trim).map(RollSpikeArm::of).toList();
    }
}
