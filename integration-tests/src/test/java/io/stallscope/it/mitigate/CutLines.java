package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A power cut's result line: printed, and appended to target/bench/NAME.lines, where the run's script reads it
 * (failsafe keeps only the output of a rerun test, and a failed cut's line matters as much).
 */
final class CutLines {
    private CutLines() {
    }

    static void report(String name, String line) throws IOException {
        System.out.println(line);
        Path lines = Files.createDirectories(Path.of(System.getProperty("stallscope.it.target", "target"), "bench"))
            .resolve(name + ".lines");
        Files.writeString(lines, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
