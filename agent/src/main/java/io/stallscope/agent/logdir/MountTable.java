package io.stallscope.agent.logdir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The mounts of /proc/self/mountinfo (proc(5)): "ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - FSTYPE
 * SOURCE SUPER-OPTIONS". A path belongs to the mount with the longest mount point that is a whole-component prefix
 * of it; of several mounts on the same point the last listed is the one on top, the one a path reaches. A bind mount
 * is a line of its own with the source file system's type and device, so it needs nothing special; an overlay
 * (a container's root) is reported as "overlay": the disk under its upper directory is not visible from inside.
 */
public final class MountTable {
    public static final Path PROC_SELF_MOUNTINFO = Paths.get("/proc/self/mountinfo");
    private final List<Mount> mounts;

    private MountTable(List<Mount> mounts) {
        this.mounts = mounts;
    }

    /** Reads this process's mount table; throws when it cannot be read (not Linux, no /proc). */
    public static MountTable read() throws IOException {
        return parse(new String(Files.readAllBytes(PROC_SELF_MOUNTINFO), StandardCharsets.UTF_8));
    }

    /** Parses mountinfo text; lines it cannot read are skipped. */
    public static MountTable parse(String text) {
        List<Mount> mounts = new ArrayList<>();
        for (String line : text.split("\n")) {
            Mount m = parseLine(line);
            if (m != null) {
                mounts.add(m);
            }
        }
        return new MountTable(Collections.unmodifiableList(mounts));
    }

    static Mount parseLine(String line) {
        String[] f = line.trim().split(" ");
        // at least 6 fields before the optional ones, the "-" separator, then type and source
        int separator = -1;
        for (int i = 6; i < f.length; i++) {
            if (f[i].equals("-")) {
                separator = i;
                break;
            }
        }
        if (separator < 0 || separator + 2 >= f.length) {
            return null;
        }
        return new Mount(unescape(f[4]), unescape(f[3]), unescape(f[separator + 1]), unescape(f[separator + 2]));
    }

    /** The kernel writes space, tab, newline and backslash in paths as octal escapes ("\040"). */
    static String unescape(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && isOctal(s, i + 1) && isOctal(s, i + 2) && isOctal(s, i + 3)) {
                sb.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static boolean isOctal(String s, int i) {
        return i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '7';
    }

    public List<Mount> mounts() {
        return mounts;
    }

    /** The mount an absolute, normalized path lies on, or null when none covers it (an empty table). */
    public Mount mountOf(String path) {
        Mount best = null;
        for (Mount m : mounts) {
            if (covers(m.mountPoint(), path) && (best == null || m.mountPoint().length() >= best.mountPoint().length())) {
                best = m;
            }
        }
        return best;
    }

    /** "/data" covers "/data" and "/data/x", not "/database". */
    static boolean covers(String mountPoint, String path) {
        if (mountPoint.equals("/")) {
            return path.startsWith("/");
        }
        return path.equals(mountPoint) || path.startsWith(mountPoint) && path.charAt(mountPoint.length()) == '/';
    }
}
