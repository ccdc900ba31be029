package io.stallscope.agent.logdir;

/** A Kafka log directory and the file system it is on; "unknown" fields when the mount table could not say. */
public final class LogDirInfo {
    public static final String UNKNOWN = "unknown";
    private final String logDir;
    private final String fsType;
    private final String device;
    private final String mountPoint;

    public LogDirInfo(String logDir, String fsType, String device, String mountPoint) {
        this.logDir = logDir;
        this.fsType = fsType;
        this.device = device;
        this.mountPoint = mountPoint;
    }

    /** The log dir on {@code mount}, or with unknown fields when there is none. */
    static LogDirInfo of(String logDir, Mount mount) {
        return mount == null ? new LogDirInfo(logDir, UNKNOWN, UNKNOWN, UNKNOWN)
            : new LogDirInfo(logDir, mount.fsType(), mount.source(), mount.mountPoint());
    }

    public String logDir() {
        return logDir;
    }

    public String fsType() {
        return fsType;
    }

    public String device() {
        return device;
    }

    public String mountPoint() {
        return mountPoint;
    }

    /** "/var/lib/kafka/data (xfs on /dev/loop3)", as the start-up line says it. */
    public String describe() {
        return logDir + " (" + fsType + " on " + device + ")";
    }

    @Override
    public String toString() {
        return describe();
    }
}
