package io.stallscope.it.demo;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The demo's own child processes besides the brokers (whose harness ends them itself): the analyzer,
 * an on-demand capture. Ended by the demo's shutdown hook, so Ctrl-C leaves nothing behind.
 */
final class OwnProcesses {
    private static final Set<Process> LIVE = new LinkedHashSet<>();

    private OwnProcesses() {
    }

    static synchronized void register(Process p) {
        LIVE.add(p);
    }

    static synchronized void unregister(Process p) {
        LIVE.remove(p);
    }

    static synchronized void endAll() {
        for (Process p : LIVE) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        LIVE.clear();
    }
}
