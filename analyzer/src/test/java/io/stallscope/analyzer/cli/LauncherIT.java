package io.stallscope.analyzer.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stallscope.analyzer.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The launcher script and the shaded jar, as an operator runs them (after package, by failsafe). */
class LauncherIT {
    @TempDir
    Path dir;

    private record Result(int code, String out, String err) {
    }

    private Result launch(String... args) throws IOException, InterruptedException {
        return launchWith(null, args);
    }

    /** With {@code javaOpts} as JAVA_OPTS (null: as the environment has it). */
    private Result launchWith(String javaOpts, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get("bin", "analyzer").toAbsolutePath().toString());
        cmd.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        // The launcher's class-data-sharing archive in this test's directory, not the user's cache.
        pb.environment().put("XDG_CACHE_HOME", dir.toString());
        if (javaOpts != null) {
            pb.environment().put("JAVA_OPTS", javaOpts);
            pb.environment().remove("JDK_JAVA_OPTIONS");
            pb.environment().remove("JAVA_TOOL_OPTIONS");
        }
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void reportsAFleetOfFilesWithJsonAndHtml() throws Exception {
        Path json = dir.resolve("r.json");
        Path html = dir.resolve("r.html");
        Result r = launch("report", Fixtures.file("async-profiler-2.9-kafka-broker-cpu-lock-alloc.jfr").toString(),
                Fixtures.file("jdk21-default.jfr").toString(), "--json", json.toString(), "--html", html.toString(), "--top", "3");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("Contended locks (from lock events)");
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.get("files")).hasSize(2);
        assertThat(root.get("contentions").size()).isBetween(1, 3);
        assertThat(root.get("findings").size()).isBetween(1, 3);
        assertThat(Files.readString(html)).startsWith("<!doctype html>");
    }

    @Test
    void runsTheSerialCollectorBelow256MbAndTheParallelOneAboveUnlessTheOptionsPickOne() throws Exception {
        // Sparse: 40 and 300 MB by their size, no disk used; not recordings, so the report fails after the flags are
        // printed.
        Path mid = sparse(dir.resolve("mid.jfr"), 40L << 20);
        Result serial = launchWith("-XX:+PrintCommandLineFlags", "report", mid.toString());
        assertThat(serial.out()).contains("-XX:+UseSerialGC", "-XX:PretenureSizeThreshold=262144")
            .doesNotContain("-XX:+UseParallelGC", "-XX:InitialHeapSize=16777216");
        Path big = sparse(dir.resolve("big-gc.jfr"), 300L << 20);
        Result parallel = launchWith("-XX:+PrintCommandLineFlags", "report", big.toString());
        assertThat(parallel.out()).contains("-XX:+UseParallelGC").doesNotContain("-XX:+UseSerialGC", "PretenureSizeThreshold");
        // The JVM refuses two collectors: the user's must be the only one.
        for (Path f : List.of(mid, big)) {
            Result chosen = launchWith("-XX:+PrintCommandLineFlags -XX:+UseG1GC", "report", f.toString());
            assertThat(chosen.out()).contains("-XX:+UseG1GC").doesNotContain("-XX:+UseParallelGC", "-XX:+UseSerialGC");
        }
    }

    private static Path sparse(Path file, long size) throws java.io.IOException {
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size);
        }
        return file;
    }

    @Test
    void runsTheSerialCollectorFromASmallHeapBelow32Mb() throws Exception {
        String fixture = Fixtures.file("async-profiler-3.0-wall-20ms.jfr").toString();
        Result small = launchWith("-XX:+PrintCommandLineFlags", "report", fixture);
        assertThat(small.code()).as(small.err()).isZero();
        assertThat(small.out()).contains("-XX:+UseSerialGC", "-XX:InitialHeapSize=16777216", "-XX:PretenureSizeThreshold=262144")
            .doesNotContain("-XX:+UseParallelGC");
        // The options' own start heap or collector wins.
        Result ownHeap = launchWith("-XX:+PrintCommandLineFlags -Xms64m", "report", fixture);
        assertThat(ownHeap.code()).as(ownHeap.err()).isZero();
        assertThat(ownHeap.out()).contains("-XX:+UseSerialGC", "-XX:InitialHeapSize=67108864");
        Result ownCollector = launchWith("-XX:+PrintCommandLineFlags -XX:+UseParallelGC", "report", fixture);
        assertThat(ownCollector.code()).as(ownCollector.err()).isZero();
        assertThat(ownCollector.out()).contains("-XX:+UseParallelGC").doesNotContain("-XX:+UseSerialGC", "InitialHeapSize=16777216");
    }

    @Test
    void picksTheCompilersByTheRecordingsSizeUnlessTheOptionsDo() throws Exception {
        String small = Fixtures.file("async-profiler-3.0-wall-20ms.jfr").toString();
        // Sparse: 300 MB by its size, no disk used. Not a recording, so the report fails after the flags are printed.
        Path big = sparse(dir.resolve("big.jfr"), 300L << 20);
        Result c1 = launchWith("-XX:+PrintCommandLineFlags", "report", small);
        assertThat(c1.code()).as(c1.err()).isZero();
        assertThat(c1.out()).contains("-XX:TieredStopAtLevel=1");
        Result tiered = launchWith("-XX:+PrintCommandLineFlags", "report", big.toString());
        assertThat(tiered.out()).contains("-XX:Tier4InvocationThreshold=50000").doesNotContain("TieredStopAtLevel");
        Result together = launchWith("-XX:+PrintCommandLineFlags", "report", small, big.toString());
        assertThat(together.out()).as("the recordings' sizes add up").contains("-XX:Tier4InvocationThreshold=50000")
                .doesNotContain("TieredStopAtLevel");
        // An existing file given to --json is output, not a recording.
        Result output = launchWith("-XX:+PrintCommandLineFlags", "report", small, "--json", big.toString());
        assertThat(output.code()).as(output.err()).isZero();
        assertThat(output.out()).contains("-XX:TieredStopAtLevel=1");
        Result chosen = launchWith("-XX:+PrintCommandLineFlags -XX:TieredStopAtLevel=4", "report", small);
        assertThat(chosen.code()).as(chosen.err()).isZero();
        assertThat(chosen.out()).doesNotContain("TieredStopAtLevel=1");
        Result chosenBig = launchWith("-XX:+PrintCommandLineFlags -XX:Tier4InvocationThreshold=7000", "report", big.toString());
        assertThat(chosenBig.out()).contains("-XX:Tier4InvocationThreshold=7000").doesNotContain("Tier4InvocationThreshold=50000");
    }

    @Test
    void aRunThatNamesNoFileStartsAsForTheSmallestRecording() throws Exception {
        // --help, --version and usage errors read nothing: C1 and the serial collector start them sooner.
        Result help = launchWith("-XX:+PrintCommandLineFlags", "--help");
        assertThat(help.code()).as(help.err()).isZero();
        assertThat(help.out()).contains("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC").doesNotContain("-XX:+UseParallelGC")
                .contains("Usage: analyzer");
        Result missing = launchWith("-XX:+PrintCommandLineFlags", "report", dir.resolve("no-such.jfr").toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.out()).contains("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
        Result chosen = launchWith("-XX:+PrintCommandLineFlags -XX:+UseParallelGC", "--help");
        assertThat(chosen.out()).contains("-XX:+UseParallelGC").doesNotContain("-XX:+UseSerialGC");
    }

    @Test
    void aTextReportLeavesJacksonUnloaded() throws Exception {
        // Loading Jackson took 0.1 s of a 0.45 s report of a small file; only --json and --html need it.
        Path classes = dir.resolve("classes.txt");
        Result r = launchWith("-Xlog:class+load=info:file=" + classes, "report", Fixtures.file("async-profiler-2.8-wall.jfr").toString());
        assertThat(r.code()).as(r.err()).isZero();
        String loaded = Files.readString(classes);
        assertThat(loaded).contains("io.stallscope.analyzer.render.TextReport ").doesNotContain("com.fasterxml.jackson");
    }

    /**
     * Gzip bombs as a user's shell runs them, with files limited to 100 MB (ulimit -f): a write past that fails with
     * "File too large", so a run that ends with the analyzer's own one line wrote no more. Time is the CPU time of the
     * run, as bash's {@code times} counts it: on this shared machine a run's elapsed time is mostly other people's.
     */
    @Test
    void gzipBombsEndInOneLineWithinFiveSecondsWithoutFillingTheDisk() throws Exception {
        Path zeros = io.stallscope.analyzer.GzipBomb.write(dir.resolve("zeros.jfr.gz"), 10 << 20, false);
        Path magic = io.stallscope.analyzer.GzipBomb.write(dir.resolve("magic.jfr.gz"), 2 << 20, true);
        for (Path bomb : List.of(zeros, magic)) {
            Result r = launchWithFilesUpTo100Mb("report", bomb.toString());
            List<String> err = r.err().lines().toList();
            assertThat(err).as(r.err()).hasSize(2);
            assertThat(r.code()).as(r.err()).isEqualTo(1);
            assertThat(err.get(0)).startsWith("analyzer: " + bomb + ": ")
                    .contains(bomb == zeros ? "not a JFR file" : "-Dstallscope.gunzip.ratio=");
            assertThat(cpuSeconds(err.get(1))).as("CPU seconds for " + bomb.getFileName()).isLessThan(5);
        }
    }

    /** Runs the launcher with files limited to 100 MB; stderr ends with the CPU time it took (bash's times). */
    private Result launchWithFilesUpTo100Mb(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", "-c", "ulimit -f 102400; \"$@\"; rc=$?; times | tail -1 >&2; exit $rc", "bash",
                Paths.get("bin", "analyzer").toAbsolutePath().toString()));
        cmd.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("XDG_CACHE_HOME", dir.toString());
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    /** User plus system seconds from a line of bash's times: "0m0.512s 0m0.061s". */
    private static double cpuSeconds(String times) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)m([\\d.]+)s (\\d+)m([\\d.]+)s").matcher(times.strip());
        assertThat(m.matches()).as(times).isTrue();
        return 60 * Integer.parseInt(m.group(1)) + Double.parseDouble(m.group(2)) + 60 * Integer.parseInt(m.group(3))
                + Double.parseDouble(m.group(4));
    }

    @Test
    void unknownOptionIsOneLineAndExitTwo() throws Exception {
        Result r = launch("report", "--frobnicate");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).startsWith("analyzer: ").doesNotContain("\n");
        Result bad = launch("report", Fixtures.file("invalid.jfr").toString());
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err().strip()).startsWith("analyzer: ").doesNotContain("\n");
    }

    @Test
    void progressGoesToATerminalOnly() throws Exception {
        Path script = Paths.get("/usr/bin/script");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(script), "util-linux script(1) not installed");
        // A few MB of recording (the same chunk twenty times), so that the run lasts a few ticks: the reader still
        // reads every copy to find it repeats the first.
        byte[] chunk = Files.readAllBytes(Fixtures.file("async-profiler-3.0-wall-20ms.jfr"));
        Path big = dir.resolve("twenty.jfr");
        try (var out = Files.newOutputStream(big)) {
            for (int i = 0; i < 20; i++) out.write(chunk);
        }
        String launcher = Paths.get("bin", "analyzer").toAbsolutePath().toString();
        String cmd = "JAVA_OPTS=-Dstallscope.progress.delayMs=0 " + launcher + " report " + big + " > " + dir.resolve("report.txt");
        Path typescript = dir.resolve("tty.txt");
        ProcessBuilder tty = new ProcessBuilder(script.toString(), "-qec", cmd, typescript.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true);
        tty.environment().put("XDG_CACHE_HOME", dir.toString());
        Process p = tty.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(Files.readString(typescript)).containsPattern("analyzer: (reading twenty.jfr \\[|analysing)");
        assertThat(Files.readString(dir.resolve("report.txt"))).contains("19 chunks repeat an earlier chunk");

        // The same run with stderr not a terminal: no progress line (the repeated chunks' warning stays).
        Path err = dir.resolve("err.txt");
        ProcessBuilder noTty = new ProcessBuilder("bash", "-c", cmd).redirectError(err.toFile());
        noTty.environment().put("XDG_CACHE_HOME", dir.toString());
        Process q = noTty.start();
        assertThat(q.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(q.exitValue()).isZero();
        assertThat(Files.readString(err)).doesNotContainPattern("analyzer: (reading|analysing)")
                .contains("19 chunks repeat an earlier chunk");
    }
}
