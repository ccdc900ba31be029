package io.stallscope.testcontainers;

import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's captures ({@code profile(true)}: a JFR file of the seconds around each stall) copied out of the
 * container, for the analyzer. The agent writes them to {@link #DIR}, which {@link AgentOptions} sets.
 */
public final class AgentCaptures {
    /** The agent's {@code profile.dir} inside the container. */
    public static final String DIR = "/tmp/stallscope-captures";

    private AgentCaptures() {
    }

    /** Copies the captures written so far into {@code into} (created if missing); returns the local files. */
    public static List<Path> copy(StallscopeAgent agent, Path into) throws IOException {
        if (!agent.options().profile()) {
            throw new IllegalStateException("the agent records no captures: attach it with AgentOptions.profile(true)");
        }
        GenericContainer<?> c = agent.container();
        List<Path> out = new ArrayList<>();
        Files.createDirectories(into);
        for (String name : list(c)) {
            Path local = into.resolve(name);
            c.copyFileFromContainer(DIR + "/" + name, local.toString());
            out.add(local);
        }
        return out;
    }

    /**
     * Waits until the agent has written at least one capture (it writes one a second or so after the stall
     * ends), then copies them all; fails after {@code timeout} with the agent's log lines.
     */
    public static List<Path> await(StallscopeAgent agent, Path into, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Path> got = copy(agent, into);
            if (!got.isEmpty()) {
                return got;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no capture in " + DIR + " after " + timeout + ": no op reached the profile"
                        + " trigger (" + agent.options() + "), or the agent could not profile; its log lines:\n  "
                        + String.join("\n  ", agent.agentLogLines()));
            }
            Thread.sleep(500);
        }
    }

    private static List<String> list(GenericContainer<?> c) throws IOException {
        // sh builtins only: finished captures are renamed into place, the hidden ones are being written
        String script = "for f in " + DIR + "/stallscope-*.jfr; do [ -f \"$f\" ] && echo \"${f##*/}\"; done; true";
        Container.ExecResult r;
        try {
            r = c.execInContainer("sh", "-c", script);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        if (r.getExitCode() != 0) {
            throw new IOException("cannot list " + DIR + " in the container (exit " + r.getExitCode() + "): " + r.getStderr().trim());
        }
        List<String> names = new ArrayList<>();
        for (String line : r.getStdout().split("\n")) {
            if (!line.isBlank()) {
                names.add(line.trim());
            }
        }
        return names;
    }
}
