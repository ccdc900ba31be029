package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/** Helpers shared by the integration tests. */
final class BrokerTestSupport {

    private BrokerTestSupport() {
    }

    /** The .log segment files of one partition directory. */
    static List<Path> segmentFiles(KafkaBroker broker, String topic, int partition) {
        Path dir = broker.dataDir().resolve(topic + "-" + partition);
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Appends a line to target/it-timings.txt so that timings survive the redirected test output. */
    static void recordTiming(String line) {
        Path file = HarnessDirs.target().resolve("it-timings.txt");
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line + System.lineSeparator(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println("[timing] " + line);
    }

    /** A process's command line from /proc, arguments joined by spaces; empty if it is gone. */
    static String commandLine(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    static long millisSince(long nanoStart) {
        return (System.nanoTime() - nanoStart) / 1_000_000;
    }
}
