package io.stallscope.agent.capture;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.config.AgentOptions;

import java.nio.file.Path;
import java.nio.file.Paths;

/** The profile.* options, resolved: where captures go, how long chunks are, what triggers one, the caps. */
public final class CaptureSettings {
    final Path dir;
    final long[] triggerNanos = new long[Op.COUNT];
    final long chunkNanos;
    final int keep;
    final long cooldownNanos;
    final int maxFiles;
    final long maxBytes;
    final String engine;
    final long intervalNanos;
    /** How long after a stall the recording keeps going before the capture is written. */
    final long afterNanos;

    CaptureSettings(Path dir, long trigger, long chunkNanos, int keep, long cooldownNanos, int maxFiles,
                    long maxBytes, String engine, long intervalNanos) {
        this.dir = dir;
        java.util.Arrays.fill(triggerNanos, trigger);
        this.chunkNanos = chunkNanos;
        this.keep = keep;
        this.cooldownNanos = cooldownNanos;
        this.maxFiles = maxFiles;
        this.maxBytes = maxBytes;
        this.engine = engine;
        this.intervalNanos = intervalNanos;
        // one second shows what the stall left behind (waiters draining) and keeps the file quick to land
        this.afterNanos = Math.min(chunkNanos, 1_000_000_000L);
    }

    public static CaptureSettings from(AgentOptions options) {
        String dir = options.profileDir();
        CaptureSettings s = new CaptureSettings(dir == null ? defaultDir() : Paths.get(dir).toAbsolutePath(),
            0, options.profileChunkNanos(), options.profileKeep(), options.profileCooldownNanos(),
            options.profileMaxFiles(), options.profileMaxBytes(), options.profileEngine(),
            options.profileIntervalNanos());
        for (int op = 0; op < Op.COUNT; op++) {
            s.triggerNanos[op] = options.profileTriggerNanos(op);
        }
        return s;
    }

    /**
     * Next to the broker's own logs when Kafka's start script named them (kafka.logs.dir), else a directory
     * of this user's under the temp dir (created 0700 and checked to be ours, see CaptureDir).
     */
    static Path defaultDir() {
        String logs = System.getProperty("kafka.logs.dir");
        if (logs != null && !logs.isEmpty()) {
            return Paths.get(logs, "stallscope-captures").toAbsolutePath();
        }
        return Paths.get(System.getProperty("java.io.tmpdir"),
            "stallscope-captures-" + System.getProperty("user.name", "broker")).toAbsolutePath();
    }

    public long triggerNanos(int op) {
        return triggerNanos[op];
    }

    public Path dir() {
        return dir;
    }
}
