package io.stallscope.agent.capture;

import io.micrometer.core.instrument.MeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.model.OpKind;
import io.stallscope.agent.model.TopicPartition;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * profile=on: records continuously in rotating chunks and, when an op stalls past its trigger, keeps
 * the chunks around the stall as one JFR file. The stalled thread only schedules the capture; all
 * recording, rotation and writing happens on one daemon thread ("stallscope-capture"). Any failure there
 * is one log line and turns capturing off; the broker is never affected.
 */
public final class StallCapture implements StallListener {
    private final CaptureSettings settings;
    private final CaptureMetrics metrics;
    private final BrokerLog log;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile boolean live = true;
    private volatile long lastAcceptedNanos;
    private volatile boolean capturedOnce;
    private boolean capLogged;
    private CaptureDir dir;
    private ChunkRing ring;
    private ScheduledFuture<?> rotation;
    private Thread exitHook;

    private StallCapture(CaptureSettings settings, CaptureMetrics metrics, BrokerLog log) {
        this.settings = settings;
        this.metrics = metrics;
        this.log = log;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "stallscope-capture");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts recording on the capture thread (JFR's and the profiler's start-up stay off the broker's main thread). */
    public static StallCapture start(CaptureSettings settings, MeterRegistry registry, BrokerLog log) {
        StallCapture capture = new StallCapture(settings, new CaptureMetrics(registry), log);
        capture.run(capture::begin);
        // a broker stopped with SIGTERM: stop the profiler and remove the chunks (captures stay)
        Thread hook = new Thread(capture::stopAtExit, "stallscope-capture-exit");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
            capture.exitHook = hook;
        } catch (IllegalStateException | SecurityException ignored) {
            // already shutting down
        }
        return capture;
    }

    public String summary() {
        return summary(settings);
    }

    /** The start-up line's clause for these settings. */
    static String summary(CaptureSettings settings) {
        String refused = CaptureDir.refusal(settings.dir);
        if (refused != null) {
            return "profile on but no captures: " + refused + " (set profile.dir)";
        }
        return "profile on (captures into " + settings.dir + ", chunks of " + settings.chunkNanos / 1_000_000_000.0
            + " s x " + settings.keep + ")";
    }

    private void begin() throws Exception {
        try {
            dir = CaptureDir.open(settings.dir);
        } catch (java.io.IOException | RuntimeException e) {
            metrics.error();
            fail("profile: cannot use the capture directory " + settings.dir + " (" + e + "); no recording, no captures");
            return;
        }
        List<ChunkRecorder> recorders = new ArrayList<>();
        String engineNote = "";
        boolean jfr = jfrAvailable();
        if (!settings.engine.equals("jfr")) {
            try {
                recorders.add(new WallClockRecorder(ProfilerLibrary.load(), settings.intervalNanos));
            } catch (ProfilerUnavailableException e) {
                if (settings.engine.equals("async-profiler") || !jfr) {
                    fail("profile: " + e.getMessage() + "; no captures (profile.engine=" + settings.engine + ")");
                    return;
                }
                engineNote = "; async-profiler unavailable (" + e.getMessage() + "), JDK Flight Recorder samples instead";
            }
        }
        boolean sampling = recorders.isEmpty();
        if (jfr) {
            engineNote += JfrRepository.ensureUsable(dir.work());
            recorders.add(JdkRecorder.of(sampling));
        }
        ring = new ChunkRing(recorders, dir.work(), settings.keep);
        try {
            ring.rotate();
        } catch (Exception e) {
            if (sampling || settings.engine.equals("async-profiler") || !jfr) {
                throw e;
            }
            // the profiler loaded but would not start (another session running, a restricted kernel)
            ring.stop();
            recorders.clear();
            recorders.add(JdkRecorder.of(true));
            engineNote = "; async-profiler did not start (" + e.getMessage() + "), JDK Flight Recorder samples instead";
            ring = new ChunkRing(recorders, dir.work(), settings.keep);
            ring.rotate();
        }
        StringBuilder names = new StringBuilder();
        for (ChunkRecorder r : recorders) {
            names.append(names.length() == 0 ? "" : " + ").append(r.name());
        }
        log.info("profile: recording with " + names + " in chunks of " + settings.chunkNanos / 1_000_000 + " ms, keeping "
            + settings.keep + "; captures go to " + settings.dir + engineNote);
        scheduleRotation();
    }

    @Override
    public void stalled(int op, long durationNanos, String threadName, TopicPartition partition) {
        if (!live || threadName.startsWith("stallscope-")) {
            return; // our own file writes are not the broker's stalls
        }
        if (!pending.compareAndSet(false, true)) {
            metrics.cooldown(); // a capture is already waiting for its after-window: this stall is in it
            return;
        }
        long now = System.nanoTime();
        if (capturedOnce && now - lastAcceptedNanos < settings.cooldownNanos) {
            pending.set(false);
            metrics.cooldown();
            return;
        }
        capturedOnce = true;
        lastAcceptedNanos = now;
        long endMillis = System.currentTimeMillis();
        Stall stall = new Stall(op, durationNanos, threadName, partition, endMillis);
        try {
            thread.schedule(() -> guarded(() -> capture(stall)), settings.afterNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            pending.set(false); // stopping
        }
    }

    private void capture(Stall stall) throws Exception {
        try {
            if (!live || ring == null) {
                return;
            }
            ring.rotate(); // closes the chunk that covers the after-window now, not at the next boundary
            scheduleRotation();
            long chunkMillis = settings.chunkNanos / 1_000_000;
            List<Chunk> chunks = ring.covering(stall.startMillis() - chunkMillis, stall.endMillis);
            long size = CaptureWriter.size(chunks);
            long[] usage = dir.usage();
            if (usage[0] + 1 > settings.maxFiles || usage[1] + size > settings.maxBytes) {
                metrics.cap();
                if (!capLogged) {
                    capLogged = true;
                    log.warn("profile: capture of " + stall.describe() + " refused: " + usage[0] + " capture files, "
                        + usage[1] + " bytes in " + settings.dir + " and " + size + " more would pass profile.max-files="
                        + settings.maxFiles + "/profile.max-bytes=" + settings.maxBytes
                        + "; nothing is deleted: remove old captures to capture again (further refusals are only counted)");
                }
                return;
            }
            Path target = unique(dir.dir(), CaptureNames.of(Instant.ofEpochMilli(stall.endMillis), OpKind.name(stall.op)));
            long bytes = CaptureWriter.write(chunks, target);
            capLogged = false;
            metrics.written();
            long covered = chunks.isEmpty() ? 0 : chunks.get(chunks.size() - 1).endMillis - chunks.get(0).startMillis;
            log.info("profile: captured " + stall.describe() + " in " + target + " (" + bytes + " bytes, "
                + covered / 1000.0 + " s around the stall" + ring.notes() + ")");
        } finally {
            pending.set(false);
        }
    }

    private static Path unique(Path dir, String name) {
        Path p = dir.resolve(name);
        for (int i = 2; Files.exists(p); i++) {
            p = dir.resolve(name.substring(0, name.length() - CaptureNames.SUFFIX.length()) + "-" + i + CaptureNames.SUFFIX);
        }
        return p;
    }

    private void scheduleRotation() {
        if (rotation != null) {
            rotation.cancel(false);
        }
        rotation = thread.schedule(() -> guarded(() -> {
            if (live) {
                ring.rotate();
                scheduleRotation();
            }
        }), settings.chunkNanos, TimeUnit.NANOSECONDS);
    }

    /** Stops recording and removes the work directory; capture files stay. Waits a few seconds at most. */
    public void stop() {
        if (exitHook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(exitHook);
            } catch (IllegalStateException ignored) {
                // shutting down: the hook runs anyway
            }
        }
        halt(10);
    }

    private void stopAtExit() {
        halt(3);
    }

    private void halt(int seconds) {
        live = false;
        try {
            thread.submit(() -> {
                stopRecording(false);
                return null;
            }).get(seconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.warn("profile: the recorder did not stop cleanly (" + e + ")");
        } finally {
            thread.shutdownNow();
        }
    }

    /** @param quiet after a failure that was already reported: the stop's own failure would be a second line */
    private void stopRecording(boolean quiet) {
        if (rotation != null) {
            rotation.cancel(false);
        }
        try {
            if (ring != null) {
                ring.stop();
            }
        } catch (Exception e) {
            if (!quiet) {
                log.warn("profile: stopping the recorder failed (" + e + ")");
            }
        } finally {
            ring = null;
            if (dir != null) {
                dir.removeWork();
            }
        }
    }

    private interface Task {
        void run() throws Exception;
    }

    private void run(Task task) {
        try {
            thread.execute(() -> guarded(task));
        } catch (RejectedExecutionException ignored) {
            // stopping
        }
    }

    /** No capture-thread task ends silently: a failure is one line and capturing stops. */
    private void guarded(Task task) {
        try {
            task.run();
        } catch (Throwable t) {
            metrics.error();
            fail("profile: recording or capturing in " + settings.dir + " failed (" + t
                + (t.getCause() == null ? "" : ", " + t.getCause()) + "); recording stopped, no further captures"
                + " until the agent is attached again");
        }
    }

    private void fail(String message) {
        if (live || ring != null) {
            live = false;
            log.error(message);
            stopRecording(true);
        }
    }

    private static boolean jfrAvailable() {
        return ModuleLayer.boot().findModule("jdk.jfr").isPresent();
    }

    /** One triggering op, as the stalled thread reported it. */
    private static final class Stall {
        final int op;
        final long durationNanos;
        final String thread;
        final TopicPartition partition;
        final long endMillis;

        Stall(int op, long durationNanos, String thread, TopicPartition partition, long endMillis) {
            this.op = op;
            this.durationNanos = durationNanos;
            this.thread = thread;
            this.partition = partition;
            this.endMillis = endMillis;
        }

        long startMillis() {
            return endMillis - durationNanos / 1_000_000;
        }

        String describe() {
            return OpKind.name(op) + " " + durationNanos / 1_000_000 + " ms on " + thread
                + (partition == null ? "" : " for " + partition);
        }
    }
}
