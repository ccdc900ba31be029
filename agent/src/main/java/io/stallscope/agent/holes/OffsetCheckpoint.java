package io.stallscope.agent.holes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One of the per-log-dir checkpoint files Kafka keeps at the root of each log dir (log-start-offset-checkpoint,
 * cleaner-offset-checkpoint): a version line, a count line, then "topic partition offset" per line. Read only.
 */
public final class OffsetCheckpoint {
    public static final String LOG_START = "log-start-offset-checkpoint";
    public static final String CLEANER = "cleaner-offset-checkpoint";

    private OffsetCheckpoint() {
    }

    /** Partition name ("orders-3") to offset; empty when the file does not exist, as on a log dir never cleaned. */
    public static Map<String, Long> read(Path file) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException absent) {
            return Collections.emptyMap();
        }
        Map<String, Long> offsets = new HashMap<>();
        for (int i = 2; i < lines.size(); i++) {
            String[] f = lines.get(i).trim().split("\\s+");
            if (f.length == 3) {
                try {
                    offsets.put(f[0] + "-" + Integer.parseInt(f[1]), Long.parseLong(f[2]));
                } catch (NumberFormatException skipped) {
                    // a line Kafka would reject too; the rest of the file still counts
                }
            }
        }
        return offsets;
    }
}
