package io.stallscope.it.slowdisk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The page cache as the kernel sees it, through target/native/pagecache (mincore and
 * posix_fadvise DONTNEED): evict files so their next read is cold, and count resident pages.
 */
public final class PageCache {
    private PageCache() {
    }

    /** Writes back and drops the files' pages from the page cache. */
    public static void evict(List<Path> files) {
        if (!files.isEmpty()) {
            run("evict", files);
        }
    }

    /** Resident pages over all pages of the files, 0 to 1 (1 when they are empty). */
    public static double residentFraction(List<Path> files) {
        if (files.isEmpty()) {
            return 1;
        }
        long resident = 0;
        long total = 0;
        for (String line : run("resident", files)) {
            String[] f = line.split(" ", 3);
            resident += Long.parseLong(f[0]);
            total += Long.parseLong(f[1]);
        }
        return total == 0 ? 1 : (double) resident / total;
    }

    /**
     * Loads the files and locks them in memory until the returned handle is closed (pagecache pin:
     * mmap and mlock in a child process). A warm control needs it on this VM: its kernel reclaims
     * page-cache pages untouched for a few seconds (DAMON pageout), so a warmed file does not stay warm.
     */
    public static AutoCloseable pin(List<Path> files) {
        List<String> cmd = new ArrayList<>();
        cmd.add(SlowDisk.nativeDir().resolve("pagecache").toString());
        cmd.add("pin");
        files.forEach(f -> cmd.add(f.toAbsolutePath().toString()));
        try {
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (!"pinned".equals(line)) {
                p.destroyForcibly();
                throw new IllegalStateException("pagecache pin failed (exit " + p.waitFor() + ")");
            }
            return () -> {
                p.getOutputStream().close(); // stdin closed: it exits, which unlocks the pages
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            };
        } catch (IOException e) {
            throw new IllegalStateException("cannot run pagecache: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<String> run(String command, List<Path> files) {
        List<String> cmd = new ArrayList<>();
        cmd.add(SlowDisk.nativeDir().resolve("pagecache").toString());
        cmd.add(command);
        files.forEach(f -> cmd.add(f.toAbsolutePath().toString()));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("pagecache " + command + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run pagecache: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
