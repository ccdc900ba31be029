package io.stallscope.analyzer.cli;

import io.stallscope.analyzer.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** Every kind of bad input ends in one line on stderr and a non-zero exit, or a report plus a warning. */
class BadInputTest {
    @TempDir
    Path dir;

    private static void assertOneLineError(CliRun r, int code, String contains) {
        assertThat(r.code()).as(r.err()).isEqualTo(code);
        assertThat(r.errLines()).as(r.err()).hasSize(1);
        assertThat(r.errLines().get(0)).startsWith("analyzer: ").contains(contains);
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    private Path file(String name, byte[] content) throws IOException {
        Path p = dir.resolve(name);
        Files.write(p, content);
        return p;
    }

    @Test
    void notAJfrFile() throws IOException {
        Path p = file("notes.txt", "hello, this is not a recording\n".repeat(10).getBytes());
        assertOneLineError(CliRun.of("report", p.toString()), Main.INPUT_ERROR, "not a JFR file");
    }

    @Test
    void emptyFile() throws IOException {
        assertOneLineError(CliRun.of("report", file("empty.jfr", new byte[0]).toString()), Main.INPUT_ERROR, "empty file");
    }

    @Test
    void missingFileAndDirectory() {
        assertOneLineError(CliRun.of("report", dir.resolve("nope.jfr").toString()), Main.INPUT_ERROR, "no such file");
        assertOneLineError(CliRun.of("report", dir.toString()), Main.INPUT_ERROR, "not a regular file");
    }

    @Test
    void publicInvalidFixture() {
        assertOneLineError(CliRun.of("report", Fixtures.file("invalid.jfr").toString()), Main.INPUT_ERROR, "invalid.jfr");
    }

    @Test
    void shortFileWithMagicOnly() throws IOException {
        assertOneLineError(CliRun.of("report", file("magic.jfr", new byte[] {'F', 'L', 'R', 0, 0, 2}).toString()),
                Main.INPUT_ERROR, "cut short");
    }

    @Test
    void singleChunkCutBeforeItsMetadata() throws IOException {
        // async-profiler writes the metadata right after the chunk header: a cut inside it leaves nothing readable.
        byte[] full = Files.readAllBytes(Fixtures.file("async-profiler-4.0-wall.jfr"));
        Path p = file("early.jfr", Arrays.copyOf(full, 4000));
        assertOneLineError(CliRun.of("report", p.toString()), Main.INPUT_ERROR, "cut short");
    }

    @Test
    void singleChunkCutInsideItsConstantPoolsReportsWhatWasRead() throws IOException {
        byte[] full = Files.readAllBytes(Fixtures.file("async-profiler-4.0-wall.jfr"));
        CliRun r = CliRun.of("report", file("half.jfr", Arrays.copyOf(full, full.length / 2)).toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.errLines()).singleElement().asString().startsWith("analyzer: warning: ").contains("cut short");
        assertThat(r.out()).contains("1,780 samples");
    }

    @Test
    void multiChunkFileCutShortReportsWhatWasReadAndWarns() throws IOException {
        byte[] a = Files.readAllBytes(Fixtures.file("async-profiler-2.8-wall.jfr"));
        byte[] b = Files.readAllBytes(Fixtures.file("async-profiler-3.0-wall-20ms.jfr"));
        Path p = dir.resolve("cut.jfr");
        try (OutputStream out = Files.newOutputStream(p)) {
            out.write(a);
            out.write(b, 0, b.length / 3);
        }
        CliRun r = CliRun.of("report", p.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.errLines()).hasSize(1);
        assertThat(r.errLines().get(0)).startsWith("analyzer: warning: ").contains("cut short");
        // All of the first chunk (8,836 samples) and some of the second.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([\\d,]+) samples").matcher(r.out());
        assertThat(m.find()).isTrue();
        assertThat(Integer.parseInt(m.group(1).replace(",", ""))).isGreaterThan(8836).isLessThan(8836 + 12508);
        assertThat(r.out()).contains("warning: file is cut short");
    }

    @Test
    void corruptBytesInsideEvents() throws IOException {
        byte[] full = Files.readAllBytes(Fixtures.file("async-profiler-2.8-wall.jfr"));
        for (int i = 100; i < 20_000; i += 7) full[i] = (byte) 0xff;
        CliRun r = CliRun.of("report", file("corrupt.jfr", full).toString());
        assertOneLineError(r, Main.INPUT_ERROR, "corrupt");
    }

    @Test
    void corruptGzip() throws IOException {
        byte[] junk = new byte[200];
        junk[0] = 0x1f;
        junk[1] = (byte) 0x8b;
        junk[2] = 8;
        for (int i = 10; i < junk.length; i++) junk[i] = (byte) (i * 31);
        CliRun r = CliRun.of("report", file("junk.jfr.gz", junk).toString());
        assertThat(r.code()).isEqualTo(Main.INPUT_ERROR);
        assertThat(r.errLines()).hasSize(1);
        assertThat(r.err()).startsWith("analyzer: ").doesNotContain("\tat ");
    }

    @Test
    void usageErrorsExitWithTwo() {
        assertOneLineError(CliRun.of("report", "--bogus", "x.jfr"), Main.USAGE, "--bogus");
        assertOneLineError(CliRun.of("report"), Main.USAGE, "FILE");
        assertOneLineError(CliRun.of(), Main.USAGE, "command");
        assertOneLineError(CliRun.of("frobnicate"), Main.USAGE, "frobnicate");
        String f = Fixtures.file("async-profiler-2.8-wall.jfr").toString();
        assertOneLineError(CliRun.of("report", f, "--min-wait", "soon"), Main.USAGE, "invalid duration");
        assertOneLineError(CliRun.of("report", f, "--threads", "(unclosed"), Main.USAGE, "--threads");
        assertOneLineError(CliRun.of("report", f, "--top", "0"), Main.USAGE, "--top");
        assertOneLineError(CliRun.of("report", f, "--from", "yesterday"), Main.USAGE, "invalid time");
    }

    /** The command list shows each command's first description line: it must be a whole sentence, not cut at a comma. */
    @Test
    void helpSummarisesTheReportCommandInAWholeSentence() {
        CliRun top = CliRun.of("--help");
        String commands = top.out().substring(top.out().indexOf("Commands:"));
        String summary = commands.substring(commands.indexOf("report") + "report".length()).replaceAll("\\s+", " ").trim();
        assertThat(summary).startsWith("Names lock waits").endsWith(".");
    }

    @Test
    void helpExitsWithZero() {
        CliRun top = CliRun.of("--help");
        assertThat(top.code()).isZero();
        assertThat(top.out()).contains("report");
        CliRun report = CliRun.of("report", "--help");
        assertThat(report.code()).isZero();
        assertThat(report.out()).contains("--html", "--json", "--threads", "--from", "--to", "--min-wait", "--top");
    }
}
