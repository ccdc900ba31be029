package io.stallscope.it.demo;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.KafkaJdks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The demo as scripts/demo runs it, after the build: its own JVM from target/classes plus
 * target/runtime-classpath.txt, with the agent jar and the analyzer's launcher from the reactor. Its
 * output (stdout and stderr) is kept line by line, and copied to {@code out/demo.out}.
 */
final class DemoProcess implements AutoCloseable {
    private final Process process;
    private final Path outDir;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    /**
     * The demo starts as from an operator's terminal, where Ctrl-C's SIGINT is handled. A build started in
     * the background by a shell without job control (nohup, "cmd &" in a script) passes SIGINT on as
     * ignored, and a JVM leaves an inherited ignored SIGINT ignored: its shutdown hooks would never run.
     * GNU env (coreutils 8.31+) resets it; without that option the demo starts as it is.
     */
    private static final List<String> DEFAULT_SIGINT = envResetsSigint() ? List.of("env", "--default-signal=INT") : List.of();

    private static boolean envResetsSigint() {
        try {
            Process p = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    DemoProcess(Path outDir, String... args) throws IOException {
        this.outDir = outDir;
        Path target = HarnessDirs.target();
        String runtime = Files.readString(target.resolve("runtime-classpath.txt")).trim();
        Path agent = AgentJar.path();
        Path analyzer = target.resolve("../../analyzer/bin/analyzer").normalize();
        List<String> cmd = new ArrayList<>(DEFAULT_SIGINT);
        cmd.addAll(List.of(KafkaJdks.defaultJdk().resolve("bin/java").toString(),
            "-D" + HarnessDirs.TARGET_PROPERTY + "=" + target,
            "-cp", target.resolve("classes") + java.io.File.pathSeparator + runtime,
            "io.stallscope.it.demo.DemoMain", "--out", outDir.toString(), "--agent", agent.toString(),
            "--analyzer", analyzer.toString()));
        cmd.addAll(List.of(args));
        Files.createDirectories(outDir);
        Path copy = outDir.resolve("demo.out");
        this.process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        this.reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    synchronized (lines) {
                        lines.add(line);
                        lines.notifyAll();
                    }
                    Files.writeString(copy, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "demo-output");
        reader.setDaemon(true);
        reader.start();
    }

    long pid() {
        return process.pid();
    }

    /** Waits until a line contains {@code text}; false if the demo ended or the time ran out first. */
    boolean awaitLine(String text, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (lines.stream().noneMatch(l -> l.contains(text))) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
                    return false;
                }
                lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 500)));
            }
            return true;
        }
    }

    /** The exit code, after waiting up to {@code timeout} for the demo and its output to end. */
    int waitFor(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the demo did not end within " + timeout + "; output so far:\n" + output());
        }
        reader.join(10_000);
        return process.exitValue();
    }

    void signal(String signal) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).start().waitFor();
    }

    String output() {
        synchronized (lines) {
            return String.join("\n", lines) + "\n";
        }
    }

    /** Processes still running whose command line names the demo's directory (its brokers, its tools). */
    List<String> leftovers() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
                    if (cmd.contains(outDir.toString()) && !p.getFileName().toString().equals(Long.toString(ProcessHandle.current().pid()))) {
                        found.add(p.getFileName() + ": " + cmd);
                    }
                } catch (IOException e) {
                    // it ended while we looked
                }
            }
        }
        return found;
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
