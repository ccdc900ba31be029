package io.stallscope.it.realdisk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.stream.Stream;

/**
 * Nothing of a real disk may outlive its test: a JVM shutdown hook closes this JVM's disks still open,
 * and every new disk first undoes the disks of JVMs that died without theirs (their state files).
 */
public final class RealDiskReaper {
    /** Newest first: a disk made on another's file system (PowerCutDisk's shelf) is undone before that one. */
    private static final Deque<RealDisk> OPEN = new ConcurrentLinkedDeque<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RealDiskReaper::closeOpen, "stallscope-realdisk-reaper"));
    }

    private RealDiskReaper() {
    }

    static void track(RealDisk d) {
        OPEN.addFirst(d);
    }

    static void untrack(RealDisk d) {
        OPEN.remove(d);
    }

    /**
     * Undoes every disk whose owning JVM is gone. Returns one line per disk reaped (what it was, and what
     * could not be undone), for the log of the run that found it.
     */
    public static synchronized List<String> reapOrphans() {
        List<String> report = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(DiskState.directory())) {
            // newest first (stallscope-PID-SEQ.state), as the shutdown hook closes them
            files = s.filter(f -> f.getFileName().toString().endsWith(".state"))
                .sorted(Comparator.comparingLong(RealDiskReaper::sequence).reversed()).toList();
        } catch (IOException e) {
            return List.of("cannot list " + DiskState.directory() + ": " + e.getMessage());
        }
        for (Path f : files) {
            DiskState.read(f).filter(st -> !st.ownerAlive()).ifPresent(st -> {
                List<String> problems = Teardown.undo(st);
                report.add("reaped the real disk of dead JVM " + st.get("owner.pid") + " (" + st.get("device") + " at "
                    + st.get("mount") + ", " + st.get("cgroup") + ")" + (problems.isEmpty() ? "" : "; left: " + problems));
                if (problems.isEmpty()) {
                    st.delete();
                }
            });
        }
        return report;
    }

    private static long sequence(Path stateFile) {
        String name = stateFile.getFileName().toString().replace(".state", "");
        try {
            return Long.parseLong(name.substring(name.lastIndexOf('-') + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static void closeOpen() {
        for (RealDisk d : List.copyOf(OPEN)) {
            try {
                d.close();
            } catch (RuntimeException e) {
                System.err.println("stallscope-realdisk-reaper: " + e.getMessage());
            }
        }
    }
}
