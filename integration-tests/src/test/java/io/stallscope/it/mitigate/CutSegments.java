package io.stallscope.it.mitigate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a cut left of a topic's segments before Kafka recovers it: the rolled segments (a later one exists)
 * that are shorter than a full segment, with their bytes. A rolled segment left empty or short below a later
 * segment is a hole Kafka's recovery keeps: it validates each segment alone and does not look for missing
 * offsets between them, and the log end offset stays at the last segment's base.
 */
final class CutSegments {
    private CutSegments() {
    }

    /**
     * e.g. "cut-0/26208:0 cut-2/40320:524288" (the first 20), or "none" when every rolled segment is at least
     * {@code full} bytes.
     */
    static String shortRolled(Path logDir, String topic, int partitions, long full) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            Path dir = logDir.resolve(topic + "-" + p);
            if (!Files.isDirectory(dir)) {
                out.add(dir.getFileName() + " missing");
                continue;
            }
            try (Stream<Path> files = Files.list(dir)) {
                List<Path> logs = files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
                for (int i = 0; i < logs.size() - 1; i++) {
                    long size = Files.size(logs.get(i));
                    if (size < full) {
                        out.add(dir.getFileName() + "/" + Long.parseLong(logs.get(i).getFileName().toString().replace(".log", "")) + ":" + size);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out.isEmpty() ? "none" : String.join(" ", out.subList(0, Math.min(20, out.size())))
            + (out.size() > 20 ? " and " + (out.size() - 20) + " more" : "");
    }
}
