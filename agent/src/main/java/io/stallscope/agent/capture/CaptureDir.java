package io.stallscope.agent.capture;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The capture directory: created private (0700) if missing; refused if it is a symlink or belongs to
 * another user (the default one may sit under a shared temp dir). Holds a private work directory for
 * the rolling chunks of this process, {@code .work-HOST-PID}.
 */
final class CaptureDir {
    private static final String WORK_PREFIX = ".work-";
    private final Path dir;
    private final Path work;

    private CaptureDir(Path dir, Path work) {
        this.dir = dir;
        this.work = work;
    }

    /**
     * Why an existing directory would be refused (a symlink, not a directory, another user's), checked without
     * creating anything: for the start-up line, since the directory is opened later on the capture thread. A
     * default directory under a shared temp dir can be pre-created by another user; the line says so at once.
     */
    static String refusal(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                return null;
            }
            if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                return dir + " is not a directory (symbolic links are refused)";
            }
            String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
            if (posix() && !owner.equals(System.getProperty("user.name"))) {
                return dir + " belongs to " + owner + ", not to this process's user";
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null; // open() says why, once it runs
        }
    }

    static CaptureDir open(Path dir) throws IOException {
        String refused = refusal(dir);
        if (refused != null) {
            throw new IOException(refused);
        }
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, privateDir());
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // checked below like any existing directory
            }
        }
        refused = refusal(dir); // created meanwhile, by us or by a race
        if (refused != null) {
            throw new IOException(refused);
        }
        String host = hostname();
        removeStaleWork(dir, host);
        Path work = dir.resolve(WORK_PREFIX + host + "-" + ProcessHandle.current().pid());
        deleteTree(work); // a previous process with our pid left it behind
        Files.createDirectory(work, privateDir());
        return new CaptureDir(dir, work);
    }

    /**
     * Work directories of brokers on this host that died without removing theirs (killed, crashed): named with
     * this host's name, their pid gone. The host name keeps a pid from another PID namespace apart: on a volume
     * that two containers share, another broker's live directory can carry a pid that does not exist here.
     */
    static void removeStaleWork(Path dir, String host) {
        String ours = WORK_PREFIX + host + "-";
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, WORK_PREFIX + "*")) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                String pid = name.startsWith(ours) ? name.substring(ours.length()) : "";
                if (pid.matches("\\d{1,10}") && !ProcessHandle.of(Long.parseLong(pid)).isPresent()) {
                    deleteTree(p);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: a leftover is ours and small
        }
    }

    /** The UTS namespace's host name (a container's own); "localhost" where it cannot be read. */
    static String hostname() {
        try {
            String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (h.matches("[A-Za-z0-9._-]{1,64}")) {
                return h;
            }
        } catch (IOException | RuntimeException ignored) {
            // not Linux: one namespace is all there is
        }
        return "localhost";
    }

    Path dir() {
        return dir;
    }

    Path work() {
        return work;
    }

    /** Files and bytes of our capture files in the directory (the operator's own files are not counted). */
    long[] usage() throws IOException {
        long files = 0;
        long bytes = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                if (CaptureNames.isCapture(p.getFileName().toString()) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    files++;
                    bytes += Files.size(p);
                }
            }
        }
        return new long[] {files, bytes};
    }

    void removeWork() {
        deleteTree(work);
    }

    private static void deleteTree(Path p) {
        try {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
                    for (Path e : entries) {
                        Files.deleteIfExists(e);
                    }
                }
            }
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort: a chunk left behind is ours and small
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    static java.nio.file.attribute.FileAttribute<?>[] privateFile() {
        return posix() ? new java.nio.file.attribute.FileAttribute<?>[] {
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
            : new java.nio.file.attribute.FileAttribute<?>[0];
    }

    /** Makes an existing file 0600 (a file the JDK's recorder wrote, with the umask's mode). */
    static void makePrivate(Path file) throws IOException {
        if (posix()) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
    }

    static java.nio.file.attribute.FileAttribute<?>[] privateDir() {
        return posix() ? new java.nio.file.attribute.FileAttribute<?>[] {
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"))}
            : new java.nio.file.attribute.FileAttribute<?>[0];
    }
}
