package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files of a running broker's partition directories. Not Files.walk over the log dir: the broker writes its
 * checkpoints as .tmp files and renames them every few seconds, and a walk that lists one and then stats it after the
 * rename fails (NoSuchFileException). Only the partition directories of one topic are listed, each once, and a file or
 * directory gone meanwhile (a segment deleted, a partition moved) is passed over.
 */
public final class PartitionFiles {
    private PartitionFiles() {
    }

    /** The regular files of {@code topic}'s partition directories in {@code dataDir} whose names end in a suffix. */
    public static List<Path> of(Path dataDir, String topic, String... suffixes) throws IOException {
        List<Path> out = new ArrayList<>();
        List<Path> dirs;
        try (Stream<Path> s = Files.list(dataDir)) {
            dirs = s.filter(d -> d.getFileName().toString().matches(java.util.regex.Pattern.quote(topic) + "-[0-9]+"))
                .sorted().toList();
        }
        for (Path dir : dirs) {
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(f -> Stream.of(suffixes).anyMatch(x -> f.getFileName().toString().endsWith(x))).sorted()
                    .forEach(out::add);
            } catch (NoSuchFileException | UncheckedIOException e) {
                // the partition's directory went (deleted or renamed to -delete) while it was listed
            }
        }
        return out;
    }
}
