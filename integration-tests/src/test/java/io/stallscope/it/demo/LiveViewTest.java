package io.stallscope.it.demo;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The live table on a terminal (redrawn in place) and in a pipe (snapshots). */
class LiveViewTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void onATerminalEachRedrawMovesUpOverThePreviousBlockAndClearsIt() {
        LiveView view = new LiveView(out, true, Duration.ofSeconds(5), 80);

        view.show("a\nb\nc\n");
        view.show("a\nb2\n");
        view.note("a note");
        view.finish("final\n");

        assertThat(printed()).isEqualTo("a\nb\nc\n"
            + "\033[3F\033[J" + "a\nb2\n"          // up over the three lines, clear, the new block
            + "\033[2F\033[J" + "a note\n" + "a\nb2\n" // a note goes above the block, which is drawn again
            + "\033[2F\033[J" + "final\n");
    }

    @Test
    void onATerminalLinesAreCutToItsWidthSoThatNoneWrapsAndBreaksTheRedraw() {
        LiveView view = new LiveView(out, true, Duration.ofSeconds(5), 25);

        view.show("x".repeat(40) + "\nshort\n");
        view.show("y\n");

        assertThat(printed()).isEqualTo("x".repeat(24) + "\nshort\n" + "\033[2F\033[J" + "y\n");
    }

    @Test
    void inAPipeItPrintsASnapshotAtMostEveryIntervalAndTheFinalState() {
        LiveView view = new LiveView(out, false, Duration.ofHours(1), 20);

        view.show("first, longer than the width: not cut in a pipe\n");
        view.show("second\n"); // within the interval: not printed
        view.note("a note");
        view.finish("final\n");

        assertThat(printed()).isEqualTo("first, longer than the width: not cut in a pipe\n\n" + "a note\n" + "final\n\n").doesNotContain("\033");
    }
}
