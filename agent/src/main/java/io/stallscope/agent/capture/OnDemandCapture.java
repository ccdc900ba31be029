package io.stallscope.agent.capture;

import jdk.jfr.Recording;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;

/**
 * {@code capture PID --duration D}: inside the broker, a JDK Flight Recorder recording of D with the
 * fallback's settings (execution samples, lock waits, slow file and socket calls, and the agent's op
 * events if it is active here), written to the requested file when D is over. Progress is answered
 * through a system property the command-line client polls over the attach connection.
 */
public final class OnDemandCapture {
    public static final String STATUS_PROPERTY = "stallscope.capture.status";

    private OnDemandCapture() {
    }

    /** Returns at once; a daemon thread stops the recording and writes the file. */
    public static void start(long durationNanos, String out) {
        try {
            if (!ModuleLayer.boot().findModule("jdk.jfr").isPresent()) {
                status("error: this JVM has no jdk.jfr module");
                return;
            }
            Path target = Paths.get(out).toAbsolutePath();
            // recorded in a fresh private directory beside the target (same file system, for the atomic move): a
            // predictable name in a shared directory could be planted as a symlink, which JFR's destination follows
            // and truncates at once, to a file the broker's user owns (meta.properties, say)
            Path privateDir = Files.createTempDirectory(target.getParent(), ".stallscope-capture-", CaptureDir.privateDir());
            Path tmp = privateDir.resolve(target.getFileName());
            Recording recording = new Recording(JfrSettings.of(true));
            recording.setName("stallscope-on-demand");
            recording.setToDisk(true);
            recording.setDestination(tmp);
            recording.start();
            status("recording " + durationNanos / 1_000_000 + " ms into " + target);
            Thread t = new Thread(() -> finish(recording, durationNanos, tmp, target, privateDir), "stallscope-on-demand");
            t.setDaemon(true);
            t.start();
        } catch (Throwable e) {
            status("error: could not start a recording (" + e + ")");
        }
    }

    private static void finish(Recording recording, long durationNanos, Path tmp, Path target, Path privateDir) {
        String outcome;
        try {
            Thread.sleep(durationNanos / 1_000_000, (int) (durationNanos % 1_000_000));
            recording.stop();
            recording.close();
            CaptureDir.makePrivate(tmp); // 0600 before it leaves the private directory
            // rename(2): a link planted at the target is replaced, never written through
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            outcome = "written " + target + " " + Files.size(target);
        } catch (Throwable e) {
            try {
                recording.close();
            } catch (Throwable ignored) {
                // the status below says what failed first
            }
            outcome = "error: the recording could not be written to " + target + " (" + e + ")";
        }
        try {
            Files.deleteIfExists(tmp);
            Files.deleteIfExists(privateDir);
        } catch (Exception ignored) {
            // best effort: an empty private directory of ours
        }
        // last: whoever polls the status sees the directory as it stays (a loaded test once saw the private dir)
        status(outcome);
    }

    private static void status(String value) {
        System.setProperty(STATUS_PROPERTY, value);
    }
}
