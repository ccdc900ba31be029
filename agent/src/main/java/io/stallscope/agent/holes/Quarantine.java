package io.stallscope.agent.holes;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Hard links to the files Kafka deletes when it truncates a log at a recovered segment: every file of the later
 * segments (.log, .index, .timeindex, .txnindex, whatever its suffix) and the producer-state snapshots past the new
 * log end, all named by a 20-digit offset above it, and the leader-epoch checkpoint it rewrites. A link keeps the
 * bytes Kafka renames to .deleted and removes; nothing is copied. The links and their directory are fsynced before
 * this returns, so they are durable before Kafka deletes anything. All or nothing: on any failure the links made are
 * removed again and the error is thrown.
 */
final class Quarantine {
    static final String EPOCH_CHECKPOINT = "leader-epoch-checkpoint";

    private Quarantine() {
    }

    /** Links into target (created) every file of partitionDir that Kafka drops when its log ends at newLogEnd. */
    static List<Path> link(Path partitionDir, long newLogEnd, Path target) throws IOException {
        List<Path> sources = filesPast(partitionDir, newLogEnd);
        Path parent = target.getParent();
        boolean parentExisted = Files.isDirectory(parent);
        Files.createDirectories(target);
        List<Path> made = new ArrayList<>();
        try {
            for (Path source : sources) {
                made.add(Files.createLink(target.resolve(source.getFileName()), source));
            }
            fsyncDir(target);
            fsyncDir(parent);
            if (!parentExisted && parent.getParent() != null) {
                fsyncDir(parent.getParent());
            }
            return made;
        } catch (IOException | RuntimeException e) {
            for (Path link : made) {
                Files.deleteIfExists(link);
            }
            try {
                Files.deleteIfExists(target);
            } catch (IOException notEmpty) {
                // a directory someone else put files in stays
            }
            throw e;
        }
    }

    static List<Path> filesPast(Path partitionDir, long newLogEnd) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(partitionDir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                boolean past = name.length() > 20 && name.substring(0, 20).chars().allMatch(Character::isDigit)
                    && name.charAt(20) == '.' && Long.parseLong(name.substring(0, 20)) > newLogEnd;
                if ((past || name.equals(EPOCH_CHECKPOINT)) && Files.isRegularFile(p)) {
                    files.add(p);
                }
            }
        }
        return files;
    }

    private static void fsyncDir(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
