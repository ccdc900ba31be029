package io.stallscope.agent.report.blame;

import io.stallscope.agent.logdir.KnownLogDirs;
import io.stallscope.agent.logdir.LogDirInfo;

/** The devices and file systems of the log dirs the agent has learned (from the mount table). */
public final class KnownLogDirDevices implements LogDirDevices {
    private final KnownLogDirs dirs;

    public KnownLogDirDevices(KnownLogDirs dirs) {
        this.dirs = dirs;
    }

    @Override
    public String device(String logDir) {
        LogDirInfo info = dirs.info(logDir);
        return info == null || LogDirInfo.UNKNOWN.equals(info.device()) ? null : info.device();
    }

    @Override
    public String fsType(String logDir) {
        LogDirInfo info = dirs.info(logDir);
        return info == null || LogDirInfo.UNKNOWN.equals(info.fsType()) ? null : info.fsType();
    }
}
