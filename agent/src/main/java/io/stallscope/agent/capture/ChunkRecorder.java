package io.stallscope.agent.capture;

import java.nio.file.Path;

/** One recorder writing a chunk file at a time; the ring switches all recorders to new files together. */
interface ChunkRecorder {
    /** Short name for log lines. */
    String name();

    /** Starts recording into {@code file}; the previous chunk (if any) is closed after, not before. */
    void next(Path file) throws Exception;

    /** A figure for the capture line, or "". */
    default String note() {
        return "";
    }

    /** Closes the current chunk; its file is then complete. */
    void stop() throws Exception;
}
