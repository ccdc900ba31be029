package io.stallscope.it.realdisk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the system tools the real disk needs (losetup, mkfs, mount), failing with their own words. */
final class Commands {
    private Commands() {
    }

    /** Runs the command to completion within 2 minutes; returns its standard output, or throws with its output. */
    static String run(String... cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(2, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + ": did not finish within 2 minutes");
            }
            String text = new String(out, StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + ": exit " + p.exitValue() + (text.isEmpty() ? "" : ": " + text));
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + cmd[0] + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + cmd[0], e);
        }
    }

    /** As {@link #run}, but a failure is returned as a message for a cleanup report instead of thrown. */
    static String tryRun(List<String> cmd) {
        try {
            run(cmd.toArray(String[]::new));
            return null;
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }

    /** Whether an executable of that name is on the PATH (or in the sbin directories root's PATH has). */
    static boolean available(String name) {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin").split(":")) {
            if (!dir.isEmpty() && java.nio.file.Files.isExecutable(java.nio.file.Path.of(dir, name))) {
                return true;
            }
        }
        return false;
    }
}
