package io.stallscope.it.realdisk;

import java.util.List;

/** The file systems a real disk can carry, with how to make each on a block device. */
public enum FsType {
    /** LINE's case: sendfile holds the inode's IOLOCK shared while it waits for the disk. */
    XFS("xfs", "mkfs.xfs", List.of("-q", "-f")),
    /** The control: ext4's splice read takes no lock that a buffered write waits for. */
    EXT4("ext4", "mkfs.ext4", List.of("-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"));

    private final String kernelName;
    private final String mkfs;
    private final List<String> mkfsOptions;

    FsType(String kernelName, String mkfs, List<String> mkfsOptions) {
        this.kernelName = kernelName;
        this.mkfs = mkfs;
        this.mkfsOptions = mkfsOptions;
    }

    /** The name the kernel gives it in /proc/mounts, e.g. "xfs". */
    public String kernelName() {
        return kernelName;
    }

    /** The mkfs program, e.g. "mkfs.xfs" (Debian's xfsprogs, e2fsprogs). */
    String mkfs() {
        return mkfs;
    }

    /** mkfs options: quiet, overwrite, and for ext4 no lazy init (it would write in the background during a test). */
    List<String> mkfsOptions() {
        return mkfsOptions;
    }

    public static FsType of(String name) {
        for (FsType t : values()) {
            if (t.kernelName.equalsIgnoreCase(name) || t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown file system '" + name + "': xfs or ext4");
    }
}
