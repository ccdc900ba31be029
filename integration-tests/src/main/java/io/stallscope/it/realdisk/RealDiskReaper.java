package io.stallscope.it.realdisk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Nothing of a real disk may outlive its test: a JVM shutdown hook closes this JVM's disks still open,
 * and every new disk first undoes the disks of JVMs that died without theirs (their state files).
 */
public final class RealDiskReaper {
    private static final Set<RealDisk> OPEN = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(RealDiskReaper::closeOpen, "stallscope-realdisk-reaper"));
    }

    private RealDiskReaper() {
    }

    static void track(RealDisk d) {
        OPEN.add(d);
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
            files = s.filter(f -> f.getFileName().toString().endsWith(".state")).toList();
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
