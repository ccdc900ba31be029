package io.stallscope.agent.report.blame;

/** What the agent knows of a log dir's storage, for the device scope and the line's file system. */
public interface LogDirDevices {
    /** Nothing known: ops in different log dirs are never paired, and the line names no file system. */
    LogDirDevices NONE = new LogDirDevices() {
        @Override
        public String device(String logDir) {
            return null;
        }

        @Override
        public String fsType(String logDir) {
            return null;
        }
    };

    /** The device the log dir is on (e.g. /dev/loop3), or null when not known. */
    String device(String logDir);

    /** Its file system type (e.g. xfs), or null when not known. */
    String fsType(String logDir);
}
