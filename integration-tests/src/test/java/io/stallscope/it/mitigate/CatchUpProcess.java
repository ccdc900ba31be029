package io.stallscope.it.mitigate;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@link CatchUpMain} in a child JVM at a lower CPU priority ({@code nice}): a stand-in for a consumer
 * on another machine, whose CPU and garbage would not be the measured producer's. On this 2-core machine
 * it still shares the cores with the broker; the niceness only makes it yield them first.
 */
public final class CatchUpProcess implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path stderr;

    private CatchUpProcess(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process went away; awaitLine says so
            }
            lines.add("<eof>");
        }, "catch-up-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts the consumer at {@code niceness} (0: as the test JVM), its stderr and GC log in {@code dir}. */
    public static CatchUpProcess start(String bootstrap, String topic, int niceness, Path dir) throws IOException {
        Files.createDirectories(dir);
        // @argfile: the test classpath can be longer than one argument may be (128 KiB)
        Path argFile = dir.resolve("catch-up.args");
        Files.writeString(argFile, "-cp \"" + System.getProperty("java.class.path").replace("\\", "\\\\") + "\"\n");
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        if (niceness != 0) {
            cmd.addAll(List.of("nice", "-n", Integer.toString(niceness)));
        }
        cmd.addAll(List.of(java, "-Xmx512m", "-XX:+UseG1GC", "-Xlog:gc:file=" + dir.resolve("catch-up-gc.log"),
            "@" + argFile, CatchUpMain.class.getName(), bootstrap, topic, "600"));
        Path stderr = dir.resolve("catch-up.err");
        Process p = new ProcessBuilder(cmd).redirectError(stderr.toFile()).start();
        return new CatchUpProcess(p, stderr);
    }

    public long pid() {
        return process.pid();
    }

    public void awaitPositioned(Duration timeout) throws Exception {
        awaitLine("positioned", timeout);
    }

    /** Waits for the consumer to finish; returns how many records it read. */
    public long awaitDone(Duration timeout) throws Exception {
        return Long.parseLong(awaitLine("done ", timeout).substring("done ".length()).trim());
    }

    private String awaitLine(String prefix, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals("<eof>")) {
                throw new IllegalStateException("catch-up consumer: no '" + prefix.trim() + "' line"
                    + (line == null ? " within " + timeout : ", exited") + "; stderr:\n" + io.stallscope.it.broker.AbstractKafkaBroker.tail(stderr, 20));
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
