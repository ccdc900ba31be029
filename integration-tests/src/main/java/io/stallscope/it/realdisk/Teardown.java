package io.stallscope.it.realdisk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Undoes what a {@link DiskState} lists, newest first: the cgroup (killing what is still in it), the
 * mount, the loop device, the image and the mount point. Each step checks that the thing is still the
 * one recorded (the loop device still backed by this image, the mount still this device), so a stale
 * record never touches anything else. Used by {@link RealDisk#close} and by {@link RealDiskReaper}.
 */
final class Teardown {
    private Teardown() {
    }

    /** Returns what could not be undone (empty: all of it is gone). */
    static List<String> undo(DiskState s) {
        List<String> problems = new ArrayList<>();
        String cgroup = s.get("cgroup");
        if (cgroup != null) {
            StringBuilder why = new StringBuilder();
            BlockIoCgroup.hierarchyRoot(why).ifPresentOrElse(
                root -> add(problems, root.existing(Path.of(cgroup)).remove()),
                () -> problems.add("cgroup " + cgroup + " left: " + why));
        }
        String mount = s.get("mount");
        String device = s.get("device");
        if (mount != null && device != null && mountedAt(device, mount)) {
            String failed = Commands.tryRun(List.of("umount", mount));
            if (failed != null) {
                // something still has a file open there (a process outside the cgroup): detach it now,
                // the kernel finishes the unmount when the last file closes
                add(problems, Commands.tryRun(List.of("umount", "-l", mount)) == null ? null : failed);
            }
        }
        String image = s.get("image");
        if (device != null && backedBy(device, image)) {
            add(problems, Commands.tryRun(List.of("losetup", "-d", device)));
        }
        for (String path : new String[] {image, mount}) {
            if (path != null) {
                try {
                    Files.deleteIfExists(Path.of(path));
                } catch (IOException e) {
                    problems.add("cannot delete " + path + ": " + e);
                }
            }
        }
        return problems;
    }

    private static void add(List<String> problems, String problem) {
        if (problem != null) {
            problems.add(problem);
        }
    }

    /** Whether /proc/mounts lists this device mounted at this directory. */
    static boolean mountedAt(String device, String mountPoint) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
                String[] f = line.split(" ");
                if (f.length >= 2 && f[0].equals(device) && f[1].equals(mountPoint)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** Whether the loop device is attached to this image file. */
    static boolean backedBy(String device, String image) {
        Path backing = Path.of("/sys/block", Path.of(device).getFileName().toString(), "loop", "backing_file");
        try {
            return image != null && Files.readString(backing).trim().equals(image);
        } catch (IOException e) {
            return false; // not attached
        }
    }
}
