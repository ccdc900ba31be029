package io.stallscope.agent.runtime;

import java.lang.management.ManagementFactory;

/**
 * Whether starting a JFR recording in this JVM costs its I/O paths anything. Before JDK 22 the first recording of a
 * JVM retransforms FileInputStream, FileOutputStream, RandomAccessFile, FileChannelImpl, the socket streams and
 * channels, Throwable and Error for JFR's I/O and error events, whatever the recording enables: JDK 17 with a
 * safepoint stream lost 5-18% of a broker's throughput at full speed (docs/safepoints.md). JDK 22+ has those events
 * built into the classes (jdk.internal.event.FileReadEvent and the rest) and retransforms none: checked with
 * -Xlog:redefine+class+load on JDK 17.0.15 and 25.
 */
final class RecordingCost {
    private RecordingCost() {
    }

    /** Why a recording is free here, or null when it is not. */
    static String whyFree() {
        try {
            Class.forName("jdk.internal.event.FileReadEvent", false, null);
            return "this JDK's I/O events are built in";
        } catch (ClassNotFoundException | LinkageError e) {
            // an older JDK: JFR instruments its I/O classes at the first recording
        }
        try {
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("-XX:StartFlightRecording")) {
                    return "the command line starts a recording";
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // no java.management: take the cheaper way
        }
        return null;
    }
}
