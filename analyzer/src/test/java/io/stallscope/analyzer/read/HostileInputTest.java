package io.stallscope.analyzer.read;

import io.stallscope.analyzer.GzipBomb;
import io.stallscope.analyzer.cli.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Recordings crafted to hang the analyzer or fill the disk, run through the CLI as a user runs it: each ends within
 * 5 s with one line on stderr and exit status 1 (LauncherIT adds that a gzip bomb writes nothing over 100 MB).
 */
class HostileInputTest {
    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
        List<String> errLines() {
            return Arrays.stream(err.split("\n")).filter(l -> !l.isBlank()).toList();
        }
    }

    private static Run report(Path file) {
        return assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Main.run(new String[] {"report", file.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }, "the report of " + file.getFileName() + " did not end within 5 s");
    }

    private static void assertOneLineError(Run r, String contains) {
        assertThat(r.code()).as(r.err()).isEqualTo(Main.INPUT_ERROR);
        assertThat(r.errLines()).as(r.err()).hasSize(1);
        assertThat(r.errLines().get(0)).startsWith("analyzer: ").contains(contains);
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    private static TinyJfr oneSample(String threadName) {
        TinyJfr t = new TinyJfr(1_700_000_000_000_000_000L, 1_000, 1_000_000_000L);
        t.thread(1, threadName);
        t.sample(1_000_000, 1, t.stack("demo.Main.run"), false);
        return t;
    }

    /** 32 levels of three fields each: one pool entry of no bytes is 3^32 values to walk. */
    @Test
    void typesThatFanOutWithoutBytesAreRefused() throws IOException {
        TinyJfr t = oneSample("main");
        t.fanOutDepth = 32;
        Path p = Files.write(dir.resolve("fan.jfr"), t.chunk());
        assertOneLineError(report(p), "fan.T0");
    }

    /** Chunks that share a header but not their bytes: each was compared with every earlier one. */
    @Test
    void manyChunksWithOneHeaderAndDifferentBytesAreCheckedInLinearTime() throws IOException {
        int chunks = 3000;
        int size = 100;
        ByteBuffer b = ByteBuffer.allocate(chunks * size);
        for (int i = 0; i < chunks; i++) {
            int at = i * size;
            b.putInt(at, 0x464c5200).putShort(at + 4, (short) 2).putLong(at + 8, size).putLong(at + 32, 1_000_000L)
                    .putLong(at + 40, 1_000_000_000L).putLong(at + 48, 1_000).putLong(at + 56, 1_000_000_000L);
            b.putInt(at + 68, i); // the bodies differ
        }
        Path p = Files.write(dir.resolve("same-headers.jfr"), b.array());
        assertOneLineError(report(p), "same-headers.jfr");
    }

    @Test
    void aGzipOfZerosIsRefusedAtItsFirstBytes() throws IOException {
        Path p = GzipBomb.write(dir.resolve("zeros.jfr.gz"), 10 << 20, false);
        assertOneLineError(report(p), "not a JFR file");
    }

    /** It starts as a recording does, so only a cap on what it inflates to stops it. */
    @Test
    void aGzipThatInflatesPastItsCapIsRefused() throws IOException {
        Path p = GzipBomb.write(dir.resolve("magic-zeros.jfr.gz"), 1 << 20, true);
        assertOneLineError(report(p), "stallscope.gunzip.");
    }

    /** A thread named with terminal escape sequences (clear the screen, set the window title, ring the bell). */
    @Test
    void controlCharactersFromTheFileReachTheTerminalEscaped() throws IOException {
        Path p = Files.write(dir.resolve("esc.jfr"), oneSample("evil\u001b[2J\u001b]0;owned\u0007\u009b31m").chunk());
        Run r = report(p);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("evil\\u001b[2J\\u001b]0;owned\\u0007\\u009b31m")
                .doesNotContain("\u001b").doesNotContain("\u0007").doesNotContain("\u009b");
    }
}
