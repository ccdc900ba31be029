package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaBroker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The holes in a cut log dir, found without the agent: Kafka's own DumpLogSegments ({@code kafka.tools}, from 4.3
 * {@code org.apache.kafka.tools}) over every
 * segment of each partition, before any broker recovered it. A hole is a rolled segment whose batches end below the
 * next segment's base offset, where that segment holds nothing recovery would truncate (no invalid bytes after its
 * last batch: Kafka's recovery truncates there and deletes every later segment, which leaves no gap). Past such a
 * segment a partition is not judged.
 */
final class DumpedHoles {
    private static final Pattern DUMPING = Pattern.compile("^Dumping (.+\\.log)$");
    private static final Pattern BATCH = Pattern.compile("^baseOffset: (\\d+) lastOffset: (\\d+) ");
    private static final Pattern INVALID = Pattern.compile("^Found \\d+ invalid bytes at the end of ");

    private DumpedHoles() {
    }

    /** Offsets {@code from} to {@code to} (inclusive) of a partition missing between two segments. */
    record Hole(String topic, int partition, long from, long to) {
        long offsets() {
            return to - from + 1;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s-%d:%d-%d", topic, partition, from, to);
        }
    }

    /** What DumpLogSegments said of one segment file. */
    private record Segment(long base, long next, boolean clean) {
    }

    /**
     * Every hole in {@code topic}'s {@code partitions} partition dirs under {@code logDir}, Kafka's tool run by
     * {@code tools}: once over every segment, and per partition when that run stopped inside a file.
     */
    static List<Hole> find(KafkaBroker tools, Path logDir, String topic, int partitions) {
        List<List<Path>> logs = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            logs.add(logs(logDir.resolve(topic + "-" + p)));
        }
        Map<String, Segment> dumped = dump(tools, logs.stream().flatMap(List::stream).toList());
        List<Hole> holes = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            List<Path> partition = logs.get(p);
            Map<String, Segment> segments = partition.stream().allMatch(f -> dumped.containsKey(f.toString()))
                ? dumped : dump(tools, partition);
            for (int i = 0; i + 1 < partition.size(); i++) {
                Segment s = segments.get(partition.get(i).toString());
                if (s == null || !s.clean()) {
                    break; // recovery truncates this segment and deletes the later ones
                }
                long nextBase = base(partition.get(i + 1));
                if (s.next() < nextBase) {
                    holes.add(new Hole(topic, p, s.next(), nextBase - 1));
                }
            }
        }
        return holes;
    }

    /** DumpLogSegments over {@code files}, in one JVM: what it said of each file it read to its end or stopped in. */
    private static Map<String, Segment> dump(KafkaBroker tools, List<Path> files) {
        if (files.isEmpty()) {
            return Map.of();
        }
        String joined = files.stream().map(Path::toString).collect(Collectors.joining(","));
        KafkaBroker.ToolResult r = tools.runTool("kafka.tools.DumpLogSegments", List.of("--files", joined), Duration.ofMinutes(2));
        if (r.output().contains("Could not find or load main class kafka.tools.DumpLogSegments")) {
            // moved to the Java tools module (kafka-tools) in 4.3
            r = tools.runTool("org.apache.kafka.tools.DumpLogSegments", List.of("--files", joined), Duration.ofMinutes(2));
        }
        Map<String, Segment> segments = parse(r.output(), r.succeeded());
        if (segments.isEmpty()) {
            throw new IllegalStateException("DumpLogSegments read nothing of " + joined + " (exit " + r.exitCode() + "): " + r.output());
        }
        return segments;
    }

    /**
     * The segments in the tool's output, by path, in order. A segment is clean when the tool read it to its end: no
     * invalid bytes after its last batch, and the tool did not stop inside it (a zeroed batch header throws).
     */
    static Map<String, Segment> parse(String output, boolean toolSucceeded) {
        Map<String, Segment> out = new LinkedHashMap<>();
        String path = null;
        long next = -1;
        boolean clean = true;
        for (String line : output.split("\n")) {
            Matcher m = DUMPING.matcher(line.trim());
            if (m.matches()) {
                if (path != null) {
                    out.put(path, new Segment(base(Path.of(path)), next, clean));
                }
                path = m.group(1);
                next = base(Path.of(path));
                clean = true;
                continue;
            }
            Matcher b = BATCH.matcher(line);
            if (b.find()) {
                next = Long.parseLong(b.group(2)) + 1;
            } else if (INVALID.matcher(line).find()) {
                clean = false;
            }
        }
        if (path != null) {
            out.put(path, new Segment(base(Path.of(path)), next, clean && toolSucceeded));
        }
        return out;
    }

    private static List<Path> logs(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}\\.log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long base(Path log) {
        String name = log.getFileName().toString();
        return Long.parseLong(name.substring(0, name.indexOf('.')));
    }
}
