package io.stallscope.agent.logdir;

/** One line of /proc/self/mountinfo, as far as the agent needs it: where, what file system, from which device. */
public final class Mount {
    private final String mountPoint;
    private final String root;
    private final String fsType;
    private final String source;

    public Mount(String mountPoint, String root, String fsType, String source) {
        this.mountPoint = mountPoint;
        this.root = root;
        this.fsType = fsType;
        this.source = source;
    }

    /** Where it is mounted, escapes undone ("/var/lib/kafka data"). */
    public String mountPoint() {
        return mountPoint;
    }

    /** The directory of the source file system that is mounted here: "/" unless it is a bind mount of a subdirectory. */
    public String root() {
        return root;
    }

    /** "xfs", "ext4", "overlay", "tmpfs"... */
    public String fsType() {
        return fsType;
    }

    /** The device or source ("/dev/loop3", "overlay", "tmpfs"). */
    public String source() {
        return source;
    }

    @Override
    public String toString() {
        return fsType + " on " + source + " at " + mountPoint;
    }
}
