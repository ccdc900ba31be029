package io.stallscope.agent.capture;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.logdir.LogDirEvent;
import io.stallscope.agent.report.jfr.OpEvents;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the JDK's Flight Recorder records beside (or, in the fallback, instead of) async-profiler: the
 * agent's stallscope.* op events (they become the analyzer's spans), lock waits with their holder
 * (monitor enter's previousOwner) and parks, and slow file and socket calls. Thresholds are low enough
 * to see a handler queued behind a stalled one, high enough that an idle broker records little.
 */
final class JfrSettings {
    static final String WAIT_THRESHOLD = "10 ms";

    private JfrSettings() {
    }

    /** @param sample true in the fallback: also sample stacks, as async-profiler would have */
    static Map<String, String> of(boolean sample) {
        Map<String, String> s = new LinkedHashMap<>();
        for (int op = 0; op < Op.COUNT; op++) {
            String name = OpEvents.name(op);
            s.put(name + "#enabled", "true");
            s.put(name + "#threshold", "0 ms"); // the agent applies jfr.threshold itself
            s.put(name + "#stackTrace", "false");
        }
        // every chunk names the log dirs' file systems: a capture cut from any chunks still carries them
        s.put(LogDirEvent.NAME + "#enabled", "true");
        s.put(LogDirEvent.NAME + "#period", "everyChunk");
        for (String event : new String[] {"jdk.JavaMonitorEnter", "jdk.ThreadPark"}) {
            s.put(event + "#enabled", "true");
            s.put(event + "#threshold", WAIT_THRESHOLD);
            s.put(event + "#stackTrace", "true");
        }
        if (sample) {
            // async-profiler's native frames name the syscall; without them, the JDK's I/O events do
            // (enabling them makes JFR instrument the JDK's file and socket classes: the fallback only)
            for (String event : new String[] {"jdk.FileWrite", "jdk.FileRead", "jdk.FileForce", "jdk.SocketRead",
                "jdk.SocketWrite"}) {
                s.put(event + "#enabled", "true");
                s.put(event + "#threshold", WAIT_THRESHOLD);
                s.put(event + "#stackTrace", "true");
            }
            for (String event : new String[] {"jdk.ExecutionSample", "jdk.NativeMethodSample"}) {
                s.put(event + "#enabled", "true");
                s.put(event + "#period", "20 ms");
            }
        }
        return s;
    }
}
