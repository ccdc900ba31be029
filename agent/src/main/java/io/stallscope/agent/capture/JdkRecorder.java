package io.stallscope.agent.capture;

import jdk.jfr.Recording;

import java.nio.file.Path;
import java.util.Map;

/**
 * The JDK's Flight Recorder, in process: one Recording per chunk. The next one starts before the
 * previous stops, so no event falls between two chunks. A stopped chunk is copied out of JFR's repository
 * with plain writes: a recording's own destination would be fsynced at every switch, one more fsync on
 * the broker's disk every few seconds for a file that is dropped seconds later.
 */
final class JdkRecorder implements ChunkRecorder {
    private final Map<String, String> settings;
    private final String name;
    private Recording current;
    private Path currentFile;

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
        next.start();
        Recording previous = current;
        Path previousFile = currentFile;
        current = next;
        currentFile = file;
        if (previous != null) {
            close(previous, previousFile);
        }
    }

    @Override
    public void stop() throws Exception {
        Recording previous = current;
        current = null;
        if (previous != null) {
            close(previous, currentFile);
        }
    }

    private static void close(Recording r, Path file) throws java.io.IOException {
        try {
            r.stop();
            try (java.io.InputStream in = r.getStream(null, null);
                 java.io.OutputStream out = java.nio.file.Files.newOutputStream(file)) {
                if (in != null) {
                    byte[] buf = new byte[64 * 1024];
                    for (int n; (n = in.read(buf)) > 0; ) {
                        out.write(buf, 0, n);
                    }
                }
            }
        } finally {
            r.close();
        }
    }
}
