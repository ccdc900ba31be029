package io.stallscope.it.examples;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JDK Flight Recorder recording started and stopped in a running broker with jcmd, as an operator
 * does during an incident; the file then covers just the interesting part.
 */
final class JfrRecording {
    private final long pid;
    private final String name;
    private final Path file;

    private JfrRecording(long pid, String name, Path file) {
        this.pid = pid;
        this.name = name;
        this.file = file;
    }

    static JfrRecording start(long pid, String name, Path settings, Path file) throws Exception {
        jcmd(pid, "JFR.start", "name=" + name, "settings=" + settings);
        return new JfrRecording(pid, name, file);
    }

    /** Stops the recording and writes it to its file. */
    Path stop() throws Exception {
        jcmd(pid, "JFR.stop", "name=" + name, "filename=" + file);
        return file;
    }

    private static void jcmd(long pid, String... command) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        List<String> cmd = new java.util.ArrayList<>(List.of(jcmd.toString(), Long.toString(pid)));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || out.contains("Exception")) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
