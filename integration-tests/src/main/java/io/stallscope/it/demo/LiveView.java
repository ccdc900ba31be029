package io.stallscope.it.demo;

import java.io.PrintStream;
import java.time.Duration;

/**
 * A block of lines that changes while a phase runs. On a terminal it is redrawn in place (ANSI: cursor
 * up, clear to the end of the screen); otherwise (a pipe, a log file, CI) a snapshot of it is printed
 * every {@code every}, so that the output stays readable and short.
 */
final class LiveView {
    private final PrintStream out;
    private final boolean ansi;
    private final long everyNanos;
    private final int width;
    private int drawnLines;
    /** When the last snapshot was printed; meaningless until {@link #printed} (nanoTime has no fixed origin). */
    private long lastPrinted;
    private boolean printed;
    private String last = "";

    /** @param width the terminal's columns: redrawn lines are cut to fit, a wrapped line would break the redraw */
    LiveView(PrintStream out, boolean ansi, Duration every, int width) {
        this.out = out;
        this.ansi = ansi;
        this.everyNanos = every.toNanos();
        this.width = Math.max(20, width);
    }

    boolean ansi() {
        return ansi;
    }

    /** Shows the block now (terminal) or when a snapshot is due (otherwise). */
    synchronized void show(String block) {
        if (ansi) {
            block = fit(block);
        }
        last = block;
        if (ansi) {
            erase();
            out.print(block);
            drawnLines = (int) block.chars().filter(c -> c == '\n').count();
            out.flush();
        } else if (!printed || System.nanoTime() - lastPrinted >= everyNanos) {
            out.print(block);
            out.println();
            lastPrinted = System.nanoTime();
            printed = true;
        }
    }

    /** A line above the block, kept on screen. */
    synchronized void note(String line) {
        erase();
        out.println(line);
        if (ansi && !last.isEmpty()) {
            out.print(last);
            drawnLines = (int) last.chars().filter(c -> c == '\n').count();
        }
        out.flush();
    }

    /** Leaves the final state of the block on screen (printing it once more when not on a terminal). */
    synchronized void finish(String block) {
        if (ansi) {
            show(block);
        } else {
            out.print(block);
            out.println();
        }
        drawnLines = 0;
        last = "";
        printed = false;
    }

    private String fit(String block) {
        StringBuilder sb = new StringBuilder();
        block.lines().forEach(l -> sb.append(l.length() < width ? l : l.substring(0, width - 1)).append('\n'));
        return sb.toString();
    }

    private void erase() {
        if (ansi && drawnLines > 0) {
            out.print("\033[" + drawnLines + "F\033[J");
        }
        drawnLines = 0;
    }
}
