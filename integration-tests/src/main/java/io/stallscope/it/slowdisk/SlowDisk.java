package io.stallscope.it.slowdisk;

import io.stallscope.it.broker.BrokerSpec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A simulated slow disk for a child process: the LD_PRELOAD shim built from src/main/c/slowdisk.c.
 * It adds latency to fsync/fdatasync of files matching one regex and to pread/sendfile of pages not
 * in the page cache for files matching another, standing in for a spinning disk; the real calls
 * still run. For matching files readahead is off (POSIX_FADV_RANDOM), so every read loads, and pays
 * for, exactly the cold pages it reads (see the header of slowdisk.c). Nothing in the child changes but
 * the time these calls take (and how much the kernel reads ahead for matching files).
 */
public final class SlowDisk {
    private final String fsyncPaths;
    private final Duration fsyncDelay;
    private final String readPaths;
    private final Duration coldReadDelay;
    private final Duration coldReadSeek;
    private final double coldReadMsPerMib;
    private final Path log;
    /** One-shot write delay (capture tests): set by {@link #slowWriteOnTrigger}. */
    private String writePaths;
    private Duration writeDelay = Duration.ZERO;
    private Path writeTrigger;
    /** fsync failure (fault tests): set by {@link #failFsyncOnTrigger}. */
    private String failPaths;
    private Path failTrigger;
    /** Rename window (log-dir move tests): set by {@link #slowRename}, {@link #gateFsyncUntilRename}, {@link #logMissingOpens}. */
    private String renamePaths;
    private Duration renameDelay = Duration.ZERO;
    private String gatePaths;
    private Duration gateMax = Duration.ofSeconds(30);
    private String enoentPaths;

    /** A 7200 rpm disk: a seek (plus half a rotation) per cold extent, 125 MB/s of transfer. */
    public static final Duration HDD_SEEK = Duration.ofMillis(8);
    public static final double HDD_MB_PER_SECOND = 125;

    private SlowDisk(String fsyncPaths, Duration fsyncDelay, String readPaths, Duration coldReadDelay,
                     Duration coldReadSeek, double coldReadMsPerMib, Path log) {
        this.fsyncPaths = fsyncPaths;
        this.fsyncDelay = fsyncDelay;
        this.readPaths = readPaths;
        this.coldReadDelay = coldReadDelay;
        this.coldReadSeek = coldReadSeek;
        this.coldReadMsPerMib = coldReadMsPerMib;
        this.log = log;
    }

    /** No delays yet; add them with {@link #slowFsync} and {@link #slowColdReads}. */
    public static SlowDisk logTo(Path log) {
        return new SlowDisk(null, Duration.ZERO, null, Duration.ZERO, Duration.ZERO, 0, log);
    }

    /** fsync and fdatasync of files whose path matches the regex wait this long first. */
    public SlowDisk slowFsync(String pathRegex, Duration delay) {
        return withWriteOf(new SlowDisk(pathRegex, delay, readPaths, coldReadDelay, coldReadSeek, coldReadMsPerMib, log));
    }

    /** pread and sendfile from matching files wait {@code delay} plus {@code perMib} per MiB not resident. */
    public SlowDisk slowColdReads(String pathRegex, Duration delay, Duration perMib) {
        return slowColdReads(pathRegex, delay, Duration.ZERO, perMib.toNanos() / 1e6);
    }

    /**
     * pread and sendfile from matching files that read pages not resident wait {@code perCall}, plus
     * {@code perExtent} per run of adjacent cold pages (a seek), plus {@code msPerMib} per cold MiB.
     */
    public SlowDisk slowColdReads(String pathRegex, Duration perCall, Duration perExtent, double msPerMib) {
        return withWriteOf(new SlowDisk(fsyncPaths, fsyncDelay, pathRegex, perCall, perExtent, msPerMib, log));
    }

    /** The copy keeps this one's write delay (set after construction by slowWriteOnTrigger). */
    private SlowDisk copy() {
        return withWriteOf(new SlowDisk(fsyncPaths, fsyncDelay, readPaths, coldReadDelay, coldReadSeek, coldReadMsPerMib, log));
    }

    private SlowDisk withWriteOf(SlowDisk d) {
        d.writePaths = writePaths;
        d.writeDelay = writeDelay;
        d.writeTrigger = writeTrigger;
        d.failPaths = failPaths;
        d.failTrigger = failTrigger;
        d.renamePaths = renamePaths;
        d.renameDelay = renameDelay;
        d.gatePaths = gatePaths;
        d.gateMax = gateMax;
        d.enoentPaths = enoentPaths;
        return d;
    }

    /**
     * A successful rename(2) whose new path matches the regex returns {@code delay} late (the renaming thread
     * sleeps after the real rename): whatever its caller does next, such as Kafka's renameDir updating dir(),
     * comes that much later. Logged "rename" (just renamed) and "rename_end" (returning).
     */
    public SlowDisk slowRename(String newPathRegex, Duration delay) {
        SlowDisk d = copy();
        d.renamePaths = newPathRegex;
        d.renameDelay = delay;
        return d;
    }

    /**
     * fsync/fdatasync of files matching the regex wait until a rename matching {@link #slowRename} has happened
     * (at most {@code max}), so that work queued behind them on the same thread pool starts inside that
     * rename's window. Logged "gate_hold" when one starts to wait, then "gate" (released by the rename) or
     * "gate_timeout", with the time waited.
     */
    public SlowDisk gateFsyncUntilRename(String pathRegex, Duration max) {
        SlowDisk d = copy();
        d.gatePaths = pathRegex;
        d.gateMax = max;
        return d;
    }

    /** An open of a matching path that fails with ENOENT is logged "open_enoent" (nothing else changes). */
    public SlowDisk logMissingOpens(String pathRegex) {
        SlowDisk d = copy();
        d.enoentPaths = pathRegex;
        return d;
    }

    /** Cold reads of matching files cost what they would on a spinning disk: {@link #HDD_SEEK}, {@link #HDD_MB_PER_SECOND}. */
    public SlowDisk spinningDiskReads(String pathRegex) {
        return slowColdReads(pathRegex, Duration.ZERO, HDD_SEEK, msPerMib(HDD_MB_PER_SECOND));
    }

    /** Milliseconds to transfer one MiB at this many MB (10^6 bytes) per second. */
    public static double msPerMib(double mbPerSecond) {
        return 1024.0 * 1024.0 / (mbPerSecond * 1e6) * 1000.0;
    }

    /**
     * write/pwrite/writev to files matching the regex wait {@code delay} first, once each time
     * {@link #armWrite()} created the trigger file; unarmed, writes run at the real disk's speed.
     */
    public SlowDisk slowWriteOnTrigger(String pathRegex, Duration delay, Path trigger) {
        SlowDisk d = new SlowDisk(fsyncPaths, fsyncDelay, readPaths, coldReadDelay, coldReadSeek, coldReadMsPerMib, log);
        d.writePaths = pathRegex;
        d.writeDelay = delay;
        d.writeTrigger = trigger.toAbsolutePath();
        d.failPaths = failPaths;
        d.failTrigger = failTrigger;
        d.renamePaths = renamePaths;
        d.renameDelay = renameDelay;
        d.gatePaths = gatePaths;
        d.gateMax = gateMax;
        d.enoentPaths = enoentPaths;
        return d;
    }

    /**
     * fsync and fdatasync of files matching the regex fail with EIO, without syncing, from the moment the
     * trigger file exists ({@link #failFsyncsNow()}): a disk whose writeback failed. Simulated: the data is
     * still in the page cache, as after a real writeback error.
     */
    public SlowDisk failFsyncOnTrigger(String pathRegex, Path trigger) {
        SlowDisk d = withWriteOf(new SlowDisk(fsyncPaths, fsyncDelay, readPaths, coldReadDelay, coldReadSeek,
            coldReadMsPerMib, log));
        d.failPaths = pathRegex;
        d.failTrigger = trigger.toAbsolutePath();
        return d;
    }

    /** From now on, matching fsyncs fail with EIO. */
    public void failFsyncsNow() throws IOException {
        Files.write(failTrigger, new byte[0]);
    }

    /** Arms the one-shot write delay: the next matching write is delayed and disarms it. */
    public void armWrite() throws IOException {
        Files.write(writeTrigger, new byte[0]);
    }

    /** Whether the armed write delay was taken (the shim removes the trigger when it delays a write). */
    public boolean writeTaken() {
        return !Files.exists(writeTrigger);
    }

    /** The environment a child needs: LD_PRELOAD plus the shim's settings. */
    public Map<String, String> env() {
        Map<String, String> env = new TreeMap<>();
        env.put("LD_PRELOAD", library().toString());
        if (fsyncPaths != null) {
            env.put("SLOWDISK_FSYNC_PATHS", fsyncPaths);
            env.put("SLOWDISK_FSYNC_MS", Long.toString(fsyncDelay.toMillis()));
        }
        if (readPaths != null) {
            env.put("SLOWDISK_READ_PATHS", readPaths);
            env.put("SLOWDISK_READ_MS", Long.toString(coldReadDelay.toMillis()));
            env.put("SLOWDISK_READ_SEEK_MS", Long.toString(coldReadSeek.toMillis()));
            env.put("SLOWDISK_READ_MS_PER_MIB", String.format(java.util.Locale.ROOT, "%.3f", coldReadMsPerMib));
        }
        if (writePaths != null) {
            env.put("SLOWDISK_WRITE_PATHS", writePaths);
            env.put("SLOWDISK_WRITE_MS", Long.toString(writeDelay.toMillis()));
            env.put("SLOWDISK_WRITE_TRIGGER", writeTrigger.toString());
        }
        if (failPaths != null) {
            env.put("SLOWDISK_FAIL_PATHS", failPaths);
            env.put("SLOWDISK_FAIL_TRIGGER", failTrigger.toString());
        }
        if (renamePaths != null) {
            env.put("SLOWDISK_RENAME_PATHS", renamePaths);
            env.put("SLOWDISK_RENAME_MS", Long.toString(renameDelay.toMillis()));
        }
        if (gatePaths != null) {
            env.put("SLOWDISK_GATE_PATHS", gatePaths);
            env.put("SLOWDISK_GATE_MAX_MS", Long.toString(gateMax.toMillis()));
        }
        if (enoentPaths != null) {
            env.put("SLOWDISK_ENOENT_PATHS", enoentPaths);
        }
        if (log != null) {
            env.put("SLOWDISK_LOG", log.toAbsolutePath().toString());
        }
        return env;
    }

    /** Puts the shim into a broker's environment. */
    public BrokerSpec.Builder applyTo(BrokerSpec.Builder broker) {
        env().forEach(broker::env);
        return broker;
    }

    public Path log() {
        return log;
    }

    /** The calls the shim saw so far (only those matching a pattern are logged). */
    public List<ShimCall> calls() throws IOException {
        List<ShimCall> out = new ArrayList<>();
        if (log == null || !Files.exists(log)) {
            return out;
        }
        for (String line : Files.readAllLines(log)) {
            ShimCall call = ShimCall.parse(line);
            if (call != null) {
                out.add(call);
            }
        }
        return out;
    }

    public static Path nativeDir() {
        Path target = Path.of(System.getProperty("stallscope.it.target", "target"));
        return target.resolve("native").toAbsolutePath();
    }

    public static Path library() {
        Path lib = nativeDir().resolve("libslowdisk.so");
        if (!Files.isRegularFile(lib)) {
            throw new IllegalStateException("no " + lib + ": the integration-tests build compiles it with gcc"
                + " (process-classes)");
        }
        return lib;
    }
}
