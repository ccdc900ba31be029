package io.stallscope.agent.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.stream.Stream;

/**
 * Checks that a process id names a running Java VM before the attach API is used on it. HotSpot's attach
 * sends SIGQUIT to a process that has no attach socket yet and then waits 10 s for one: a process that is
 * not a JVM would be killed by the signal (or dump core) and the client would hang meanwhile. So the
 * process must map a libjvm.so (also one deleted since, as after a JDK upgrade under a running broker) and
 * run HotSpot's "Signal Dispatcher" thread, the one that turns SIGQUIT into an attach: a program that merely
 * maps a file of that name has none, and neither has a JVM started with -Xrs, which SIGQUIT would kill.
 * Linux's /proc answers in a millisecond; without /proc (or when it is not readable) the attach API decides.
 */
public final class AttachTarget {
    private final Path proc;

    public AttachTarget(Path proc) {
        this.proc = proc;
    }

    public static AttachTarget onThisMachine() {
        return new AttachTarget(Paths.get("/proc"));
    }

    /** Null when the process may be a JVM, else why it is not one, as the end of "cannot attach to process PID: ". */
    public String whyNot(String pid) {
        if (!Files.isDirectory(proc.resolve("self"))) {
            return null;
        }
        Path dir = proc.resolve(pid);
        if (!Files.isDirectory(dir)) {
            return "no such process";
        }
        try (Stream<String> maps = Files.lines(dir.resolve("maps"), StandardCharsets.ISO_8859_1)) {
            if (!maps.anyMatch(l -> l.endsWith("/libjvm.so") || l.endsWith("/libjvm.so (deleted)"))) {
                return "it is not a Java virtual machine (no libjvm.so in " + dir.resolve("maps") + ")";
            }
        } catch (IOException | SecurityException | java.io.UncheckedIOException e) {
            return null; // another user's process: the attach API gives the real reason
        }
        try (Stream<Path> tasks = Files.list(dir.resolve("task"))) {
            return tasks.anyMatch(AttachTarget::isSignalDispatcher) ? null
                : "it runs no HotSpot Signal Dispatcher thread (not a HotSpot JVM, or one started with -Xrs,"
                    + " which the attach signal would stop)";
        } catch (IOException | SecurityException | java.io.UncheckedIOException e) {
            return null;
        }
    }

    /** Linux keeps 15 characters of a thread's name: "Signal Dispatcher" reads "Signal Dispatch". */
    private static boolean isSignalDispatcher(Path task) {
        try {
            return Files.readString(task.resolve("comm"), StandardCharsets.ISO_8859_1).strip().equals("Signal Dispatch");
        } catch (IOException | SecurityException e) {
            return false; // the thread ended meanwhile
        }
    }
}
