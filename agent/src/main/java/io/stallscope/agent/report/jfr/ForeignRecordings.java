package io.stallscope.agent.report.jfr;

import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether someone else's JFR recording runs, when the agent runs one of its own. The safepoint timing's in-process
 * stream is a recording, and a recording turns on every event it gives no setting to, the agent's op events included;
 * it cannot give them one (JFR merges only explicit settings, so "off" there would take them from an operator's
 * default.jfc recording). So the agent asks this instead of the event alone: with only its own recording running, an
 * op's event is neither made, ranked on the broker's thread nor committed, as before the stream. Only loaded when the
 * JVM has the jdk.jfr module.
 */
public final class ForeignRecordings {
    private static final Set<Long> OWN = ConcurrentHashMap.newKeySet();
    private static final FlightRecorderListener LISTENER = new FlightRecorderListener() {
        @Override
        public void recordingStateChanged(Recording recording) {
            update();
        }
    };
    /** True while the agent's own recordings are the only ones running: the op events then go nowhere wanted. */
    private static volatile boolean onlyOwn;

    private ForeignRecordings() {
    }

    /** Whether the op events would only reach the agent's own recording. False whenever the agent runs none. */
    public static boolean onlyOwn() {
        return onlyOwn;
    }

    /** A recording the agent runs for itself; its state changes are followed from now on. */
    public static synchronized void own(long recordingId) {
        if (OWN.isEmpty()) {
            FlightRecorder.addListener(LISTENER);
        }
        OWN.add(recordingId);
        update();
    }

    /** That recording ended; with none of its own left, the agent stops following recordings. */
    public static synchronized void disown(long recordingId) {
        OWN.remove(recordingId);
        if (OWN.isEmpty()) {
            FlightRecorder.removeListener(LISTENER);
        }
        update();
    }

    private static void update() {
        if (OWN.isEmpty()) {
            onlyOwn = false;
            return;
        }
        boolean foreign = false;
        for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
            if (r.getState() == RecordingState.RUNNING && !OWN.contains(r.getId())) {
                foreign = true;
                break;
            }
        }
        onlyOwn = !foreign;
    }
}
