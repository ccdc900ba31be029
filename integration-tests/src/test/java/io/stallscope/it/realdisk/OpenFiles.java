package io.stallscope.it.realdisk;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A process's open file descriptors by kind, from /proc/PID/fd (the process's own user or root): what uses up
 * the open-file limit, e.g. a broker's one descriptor per segment's {@code .log} file. Kinds: a file's suffix,
 * after "segment " for a segment's files ({@code segment .log}, {@code segment .index}, {@code .jar}...),
 * {@code socket}, {@code pipe}, {@code anon_inode}, or {@code other}.
 */
final class OpenFiles {
    private OpenFiles() {
    }

    /** "19153 open files (segment .log 19000, .jar 118, socket 12, ...); limit: soft 20000, hard 20000". */
    static String describe(long pid) {
        Map<String, Integer> kinds = count(pid);
        int total = kinds.values().stream().mapToInt(Integer::intValue).sum();
        String each = kinds.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
            .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
        return total + " open files (" + each + "); " + limit(pid);
    }

    static Map<String, Integer> count(long pid) {
        Map<String, Integer> kinds = new TreeMap<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds) {
                String target;
                try {
                    target = Files.readSymbolicLink(fd).toString();
                } catch (IOException e) {
                    continue; // closed while we read
                }
                kinds.merge(kind(target), 1, Integer::sum);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the open files of pid " + pid + ": " + e, e);
        }
        return kinds;
    }

    static String kind(String target) {
        if (target.startsWith("socket:")) {
            return "socket";
        }
        if (target.startsWith("pipe:")) {
            return "pipe";
        }
        if (target.startsWith("anon_inode:")) {
            return "anon_inode";
        }
        String name = target.substring(target.lastIndexOf('/') + 1).replace(" (deleted)", "");
        int dot = name.lastIndexOf('.');
        if (dot <= 0 || !target.startsWith("/")) {
            return "other";
        }
        // a segment's files are named by their base offset, 20 digits: not the broker's own server.log
        return (name.matches("\\d{20}\\..*") ? "segment " : "") + name.substring(dot);
    }

    private static String limit(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "limits")).stream()
                .filter(l -> l.startsWith("Max open files"))
                .map(l -> l.substring("Max open files".length()).trim().split("\\s+"))
                .map(f -> "limit: soft " + f[0] + ", hard " + f[1]).findFirst().orElse("limit: unknown");
        } catch (IOException e) {
            return "limit: unknown (" + e.getMessage() + ")";
        }
    }
}
