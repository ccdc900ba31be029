package io.stallscope.agent.logdir;

import jdk.jfr.FlightRecorder;

/**
 * Writes {@link LogDirEvent}: for every known log dir at each chunk of any recording (a periodic event), and once
 * when a log dir is learned. Only loaded when the JVM has the jdk.jfr module.
 */
public final class LogDirJfr implements LogDirListener {
    private final KnownLogDirs dirs;
    private final Runnable everyChunk;

    public LogDirJfr(KnownLogDirs dirs) {
        this.dirs = dirs;
        this.everyChunk = this::emitAll;
        FlightRecorder.addPeriodicEvent(LogDirEvent.class, everyChunk);
    }

    @Override
    public void learned(LogDirInfo info) {
        emit(info);
    }

    private void emitAll() {
        try {
            for (LogDirInfo info : dirs.all()) {
                emit(info);
            }
        } catch (Throwable ignored) {
            // JFR's periodic thread: nothing to tell, the next chunk tries again
        }
    }

    private static void emit(LogDirInfo info) {
        LogDirEvent e = new LogDirEvent();
        if (!e.isEnabled()) {
            return;
        }
        e.logDir = info.logDir();
        e.fileSystem = info.fsType();
        e.device = info.device();
        e.mountPoint = info.mountPoint();
        e.commit();
    }

    @Override
    public void close() {
        FlightRecorder.removePeriodicEvent(everyChunk);
    }
}
