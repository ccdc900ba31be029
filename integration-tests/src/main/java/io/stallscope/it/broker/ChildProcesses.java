package io.stallscope.it.broker;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** Every child JVM the harness starts, so that a JVM shutdown hook can end those still running. */
final class ChildProcesses {

    private static final Set<Process> LIVE = new LinkedHashSet<>();
    private static boolean hookInstalled;

    private ChildProcesses() {
    }

    static synchronized void register(Process p) {
        if (!hookInstalled) {
            Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::endAll, "stallscope-broker-reaper"));
            hookInstalled = true;
        }
        LIVE.add(p);
    }

    static synchronized void unregister(Process p) {
        LIVE.remove(p);
    }

    static synchronized int liveCount() {
        LIVE.removeIf(p -> !p.isAlive());
        return LIVE.size();
    }

    /** SIGTERM to all, up to 5 s in total for them to exit, then SIGKILL. */
    static void endAll() {
        List<Process> all;
        synchronized (ChildProcesses.class) {
            all = new ArrayList<>(LIVE);
            LIVE.clear();
        }
        all.forEach(p -> {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroy();
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Process p : all) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !p.waitFor(left, TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
