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
 * the rolling chunks of this process.
 */
final class CaptureDir {
    private final Path dir;
    private final Path work;

    private CaptureDir(Path dir, Path work) {
        this.dir = dir;
        this.work = work;
    }

    static CaptureDir open(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            try {
                Files.createDirectory(dir, privateDir());
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // checked below like any existing directory
            }
        }
        if (Files.isSymbolicLink(dir) || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException(dir + " is not a directory (symbolic links are refused)");
        }
        if (posix() && !Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName()
            .equals(System.getProperty("user.name"))) {
            throw new IOException(dir + " belongs to " + Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName()
                + ", not to this process's user");
        }
        removeStaleWork(dir);
        Path work = dir.resolve(".work-" + ProcessHandle.current().pid());
        deleteTree(work); // a previous process with our pid left it behind
        Files.createDirectory(work, privateDir());
        return new CaptureDir(dir, work);
    }

    /** Work directories of brokers that died without removing theirs (killed, crashed): ours by name, pid gone. */
    private static void removeStaleWork(Path dir) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, ".work-*")) {
            for (Path p : entries) {
                String pid = p.getFileName().toString().substring(".work-".length());
                if (pid.matches("\\d{1,10}") && !ProcessHandle.of(Long.parseLong(pid)).isPresent()) {
                    deleteTree(p);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // best effort: a leftover is ours and small
        }
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
