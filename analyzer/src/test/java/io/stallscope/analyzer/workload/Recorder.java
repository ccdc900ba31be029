package io.stallscope.analyzer.workload;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Records {@link ContentionProgram} in a child JVM, under async-profiler (from its Maven Central jar, which
 * carries the native library) or under the JDK's Flight Recorder. Real recordings, made during the test.
 */
public final class Recorder {
    public static final int SECONDS = 4;
    /** Recordings made in this test JVM, shared by the test classes that read them. */
    private static final java.util.Map<String, Path> RECORDED = new java.util.HashMap<>();

    private Recorder() {
    }

    public static Path workDir() throws IOException {
        Path dir = Paths.get("target", "recordings").toAbsolutePath();
        Files.createDirectories(dir);
        return dir;
    }

    /** The linux-x64 libasyncProfiler.so from the tools.profiler:async-profiler jar, extracted once. */
    public static Path asyncProfilerLibrary() throws IOException {
        Path lib = workDir().resolve("libasyncProfiler.so");
        if (!Files.exists(lib)) {
            URL url = Recorder.class.getClassLoader().getResource("linux-x64/libasyncProfiler.so");
            if (url == null) throw new IllegalStateException("tools.profiler:async-profiler is not on the test classpath");
            try (InputStream in = url.openStream()) {
                Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return lib;
    }

    /** A wall-clock plus lock recording by async-profiler; returns the .jfr; the ground truth sits beside it. */
    public static synchronized Path asyncProfiler(String mode) throws Exception {
        Path cached = RECORDED.get("ap-" + mode);
        if (cached != null) return cached;
        Path jfr = workDir().resolve("ap-" + mode + ".jfr");
        String agent = "-agentpath:" + asyncProfilerLibrary() + "=start,event=wall,interval=10ms,lock=0ms,jfr,file=" + jfr;
        run(List.of(agent), mode, jfr);
        RECORDED.put("ap-" + mode, jfr);
        return jfr;
    }

    /**
     * async-profiler's jfrsync: one file with a JDK Flight Recorder chunk (monitor enter with previousOwner)
     * and an async-profiler chunk (wall samples with native frames), each with its own tick base.
     */
    public static synchronized Path jfrsync(String mode) throws Exception {
        Path cached = RECORDED.get("sync-" + mode);
        if (cached != null) return cached;
        Path jfr = workDir().resolve("sync-" + mode + ".jfr");
        Path settings = Paths.get(Recorder.class.getClassLoader().getResource("contention.jfc").toURI());
        String agent = "-agentpath:" + asyncProfilerLibrary() + "=start,event=wall,interval=10ms,jfrsync=" + settings + ",file=" + jfr;
        run(List.of(agent), mode, jfr);
        RECORDED.put("sync-" + mode, jfr);
        return jfr;
    }

    /** A JDK Flight Recorder recording with monitor-enter, park and file events at zero threshold. */
    public static synchronized Path jdk(String mode) throws Exception {
        Path cached = RECORDED.get("jdk-" + mode);
        if (cached != null) return cached;
        Path jfr = workDir().resolve("jdk-" + mode + ".jfr");
        URL jfc = Recorder.class.getClassLoader().getResource("contention.jfc");
        Path settings = Paths.get(jfc.toURI());
        run(List.of("-XX:StartFlightRecording=filename=" + jfr + ",settings=" + settings), mode, jfr);
        RECORDED.put("jdk-" + mode, jfr);
        return jfr;
    }

    public static Path truthOf(Path jfr) {
        return jfr.resolveSibling(jfr.getFileName() + ".truth");
    }

    /**
     * {@link AgentOpsProgram} (the agent's stallscope.* events from a plain program) under JDK Flight Recorder
     * ({@code jdk}) or async-profiler's jfrsync ({@code jfrsync}, wall samples in a second chunk).
     */
    public static synchronized Path agentOps(String how) throws Exception {
        Path cached = RECORDED.get("ops-" + how);
        if (cached != null) return cached;
        Path jfr = workDir().resolve("ops-" + how + ".jfr");
        Path settings = Paths.get(Recorder.class.getClassLoader().getResource("contention.jfc").toURI());
        String arg = how.equals("jfrsync")
                ? "-agentpath:" + asyncProfilerLibrary() + "=start,event=wall,interval=10ms,jfrsync=" + settings + ",file=" + jfr
                : "-XX:StartFlightRecording=filename=" + jfr + ",settings=" + settings;
        run(List.of(arg), AgentOpsProgram.class, List.of(), jfr);
        RECORDED.put("ops-" + how, jfr);
        return jfr;
    }

    /** {@link StatesProgram} under async-profiler's wall-clock sampling alone: samples of every thread, no lock events. */
    public static synchronized Path wallOnly() throws Exception {
        Path cached = RECORDED.get("wall-only");
        if (cached != null) return cached;
        Path jfr = workDir().resolve("wall-only.jfr");
        run(List.of("-agentpath:" + asyncProfilerLibrary() + "=start,event=wall,interval=10ms,jfr,file=" + jfr),
                StatesProgram.class, List.of(), jfr);
        RECORDED.put("wall-only", jfr);
        return jfr;
    }

    /**
     * {@link WriteBehindProgram} (appends and reads of one segment file at once, log dirs labelled xfs and ext4) under
     * async-profiler's jfrsync: the agent-shaped events in the JDK chunk, wall samples every 10 ms in the other.
     */
    public static synchronized Path writeBehind() throws Exception {
        Path cached = RECORDED.get("write-behind");
        if (cached != null) return cached;
        Path jfr = workDir().resolve("write-behind.jfr");
        Path settings = Paths.get(Recorder.class.getClassLoader().getResource("contention.jfc").toURI());
        run(List.of("-agentpath:" + asyncProfilerLibrary() + "=start,event=wall,interval=10ms,jfrsync=" + settings + ",file=" + jfr),
                WriteBehindProgram.class, List.of(), jfr);
        RECORDED.put("write-behind", jfr);
        return jfr;
    }

    /**
     * {@link SafepointProgram} under async-profiler's jfrsync (the JVM's safepoint events and the agent-shaped ones in
     * the JDK chunk, wall samples every 10 ms in the other), with C2's safepoint polls left out of counted loops:
     * mode {@code spin}, loops that hold safepoints up for 150-300 ms; {@code control}, short loops.
     */
    public static synchronized Path safepoints(String mode) throws Exception {
        Path cached = RECORDED.get("safepoints-" + mode);
        if (cached != null) return cached;
        Path jfr = workDir().resolve("safepoints-" + mode + ".jfr");
        Path settings = Paths.get(Recorder.class.getClassLoader().getResource("safepoints.jfc").toURI());
        run(List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:-UseCountedLoopSafepoints", "-XX:LoopStripMiningIter=0",
                        "-agentpath:" + asyncProfilerLibrary() + "=start,event=wall,interval=10ms,jfrsync=" + settings + ",file=" + jfr),
                SafepointProgram.class, List.of(mode), jfr);
        RECORDED.put("safepoints-" + mode, jfr);
        return jfr;
    }

    /**
     * {@link PageFaultProgram} under async-profiler's CPU sampling, every 1 ms: where the kernel lets it (root, or
     * perf_event_paranoid at most 1), its stacks carry the kernel's frames, page faults' included.
     */
    public static synchronized Path pageFaults() throws Exception {
        Path cached = RECORDED.get("page-faults");
        if (cached != null) return cached;
        Path jfr = workDir().resolve("page-faults.jfr");
        run(List.of("-agentpath:" + asyncProfilerLibrary() + "=start,event=cpu,interval=1ms,jfr,file=" + jfr),
                PageFaultProgram.class, List.of(), jfr);
        RECORDED.put("page-faults", jfr);
        return jfr;
    }

    private static void run(List<String> jvmArgs, String mode, Path jfr) throws Exception {
        run(jvmArgs, ContentionProgram.class, List.of(mode), jfr);
    }

    private static void run(List<String> jvmArgs, Class<?> program, List<String> programArgs, Path jfr) throws Exception {
        Files.deleteIfExists(jfr);
        Path work = workDir().resolve(jfr.getFileName() + ".data");
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(Paths.get(ContentionProgram.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
        cmd.add(program.getName());
        cmd.addAll(programArgs);
        cmd.add(String.valueOf(SECONDS));
        cmd.add(work.toString());
        cmd.add(truthOf(jfr).toString());
        Path log = workDir().resolve(jfr.getFileName() + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(SECONDS + 60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("recording child JVM did not finish; see " + log);
        }
        if (p.exitValue() != 0 || !Files.exists(jfr)) {
            throw new IllegalStateException("recording failed (exit " + p.exitValue() + "): " + Files.readString(log));
        }
        // The files the program wrote are big and of no further use (WriteBehindProgram's are in directories).
        try (var files = Files.walk(work)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!f.equals(work)) Files.deleteIfExists(f);
            }
        }
    }

    /** The true lock holds written by the program: thread, from, to (epoch ns). */
    public record Hold(String thread, long from, long to) {
    }

    public static List<Hold> truth(Path jfr) throws IOException {
        List<Hold> holds = new ArrayList<>();
        for (String line : Files.readAllLines(truthOf(jfr))) {
            String[] p = line.split("\t");
            holds.add(new Hold(p[0], Long.parseLong(p[1]), Long.parseLong(p[2])));
        }
        return holds;
    }
}
