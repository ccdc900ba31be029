package io.stallscope.analyzer.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

/**
 * A progress bar on stderr for reads that take more than a couple of seconds, and only when stderr is a
 * terminal: scripts and CI logs get no control characters.
 */
final class Progress implements AutoCloseable {
    /** Quiet for the first two seconds; -Dstallscope.progress.delayMs changes that (the launcher test uses 0). */
    private static final long DELAY_NANOS = Long.getLong("stallscope.progress.delayMs", 2000L) * 1_000_000L;

    private final PrintStream err;
    private final boolean enabled;
    private final long total;
    private final long began = System.nanoTime();
    private volatile long done;
    private volatile long fileBase;
    private volatile long fileSize;
    private volatile String name = "";
    private volatile String phase;
    private volatile long phaseStart;
    private Thread ticker;
    private volatile boolean drawn;

    private Progress(PrintStream err, boolean enabled, long total) {
        this.err = err;
        this.enabled = enabled;
        this.total = Math.max(1, total);
    }

    static Progress start(PrintStream err, List<Path> files) {
        long total = 0;
        for (Path f : files) {
            try {
                total += Files.size(f);
            } catch (IOException ignored) {
                // A missing file is reported when it is read.
            }
        }
        Progress p = new Progress(err, err == System.err && stderrIsTerminal(), total);
        if (p.enabled) {
            p.ticker = new Thread(p::tick, "analyzer-progress");
            p.ticker.setDaemon(true);
            p.ticker.start();
        }
        return p;
    }

    /** Linux: fd 2 is a terminal when it links to a tty or pseudo-terminal device. */
    private static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Paths.get("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    void file(Path f) {
        fileBase += fileSize;
        name = String.valueOf(f.getFileName());
        try {
            fileSize = Files.size(f);
        } catch (IOException e) {
            fileSize = 0;
        }
        done = fileBase;
    }

    void bytes(long readInFile) {
        done = fileBase + readInFile;
    }

    /** After reading: a named phase with its elapsed time, since the analysis has no byte count to show. */
    void phase(String what) {
        phaseStart = System.nanoTime();
        phase = what;
    }

    private void tick() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Thread.sleep(DELAY_NANOS == 0 ? 50 : 250);
                if (System.nanoTime() - began < DELAY_NANOS) continue;
                String p = phase;
                if (p != null) {
                    long s = (System.nanoTime() - phaseStart) / 1_000_000_000L;
                    err.print("\ranalyzer: " + p + "... " + s + " s" + " ".repeat(40));
                } else {
                    int pct = (int) Math.min(100, done * 100 / total);
                    int bar = pct * 30 / 100;
                    err.print("\ranalyzer: reading " + name + " [" + "#".repeat(bar) + " ".repeat(30 - bar) + "] " + pct + "%  ");
                }
                err.flush();
                drawn = true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.interrupt();
            try {
                ticker.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ticker = null;
        }
        if (drawn) {
            err.print("\r" + " ".repeat(79) + "\r");
            err.flush();
            drawn = false;
        }
    }
}
