package io.stallscope.agent.capture;

import jdk.jfr.Recording;

import java.nio.file.Path;
import java.util.Map;

/**
 * The JDK's Flight Recorder, in process: one Recording per chunk. The next one starts before the
 * previous stops, so no event falls between two chunks; stopping writes the chunk's file.
 */
final class JdkRecorder implements ChunkRecorder {
    private final Map<String, String> settings;
    private final String name;
    private Recording current;

    JdkRecorder(Map<String, String> settings, String name) {
        this.settings = settings;
        this.name = name;
    }

    /** @param sampling true in the fallback: execution samples as well */
    static JdkRecorder of(boolean sampling) {
        return new JdkRecorder(JfrSettings.of(sampling), sampling
            ? "JDK Flight Recorder (execution samples every 20 ms, lock waits, stallscope events)"
            : "JDK Flight Recorder (lock waits, stallscope events)");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void next(Path file) throws Exception {
        Recording next = new Recording(settings);
        next.setName("stallscope-capture");
        next.setToDisk(true);
        next.setDestination(file);
        next.start();
        Recording previous = current;
        current = next;
        if (previous != null) {
            close(previous);
        }
    }

    @Override
    public void stop() throws Exception {
        Recording previous = current;
        current = null;
        if (previous != null) {
            close(previous);
        }
    }

    private static void close(Recording r) {
        try {
            r.stop();
        } finally {
            r.close();
        }
    }
}
