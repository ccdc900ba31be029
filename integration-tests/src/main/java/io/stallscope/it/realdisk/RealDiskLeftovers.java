package io.stallscope.it.realdisk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What of the real disks made under a directory is still on the machine: mounts and loop devices. */
public final class RealDiskLeftovers {
    private RealDiskLeftovers() {
    }

    /** Mount points under {@code dir} in /proc/mounts, and loop devices backed by an image under it. */
    public static List<String> under(Path dir) throws IOException {
        String prefix = dir.toAbsolutePath().toString() + "/";
        List<String> left = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of("/proc/mounts"))) {
            String[] f = line.split(" ");
            if (f.length >= 2 && f[1].startsWith(prefix)) {
                left.add("mount " + f[1]);
            }
        }
        try (var blocks = Files.list(Path.of("/sys/block"))) {
            for (Path b : blocks.filter(p -> p.getFileName().toString().startsWith("loop")).toList()) {
                Path backing = b.resolve("loop/backing_file");
                if (Files.exists(backing) && Files.readString(backing).trim().startsWith(prefix)) {
                    left.add("loop device /dev/" + b.getFileName() + " on " + Files.readString(backing).trim());
                }
            }
        }
        return left;
    }
}
