package io.stallscope.agent.safepoint;

import io.stallscope.agent.report.jfr.ForeignRecordings;
import jdk.jfr.EventSettings;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;
import jdk.jfr.consumer.RecordedEvent;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * An in-process JFR stream of the JVM's own safepoint events. RecordingStream is Java 14+ and the agent is compiled
 * for 11, so it is reached by reflection: a few calls at start and stop, none per event. Only loaded when the JVM
 * has the jdk.jfr module.
 */
final class SafepointStream implements AutoCloseable {
    static final String BEGIN = "jdk.SafepointBegin";
    static final String SYNC = "jdk.SafepointStateSynchronization";
    static final String OPERATION = "jdk.ExecuteVMOperation";
    /** How long premain waits for the stream's recording to run. */
    private static final long START_TIMEOUT_NANOS = 5_000_000_000L;

    private final AutoCloseable stream;
    /** The id of the recording under the stream. */
    private final Set<Long> own;

    private SafepointStream(AutoCloseable stream, Set<Long> own) {
        this.stream = stream;
        this.own = own;
    }

    /**
     * Starts a stream that hands each safepoint event to {@code handler} on the stream's own thread.
     *
     * @throws UnsupportedOperationException on a JVM without event streaming (before Java 14)
     */
    static SafepointStream start(Consumer<RecordedEvent> handler) throws ReflectiveOperationException {
        Class<?> type;
        try {
            type = Class.forName("jdk.jfr.consumer.RecordingStream");
        } catch (ClassNotFoundException e) {
            throw new UnsupportedOperationException("needs Java 14+ (JFR event streaming)");
        }
        AutoCloseable stream = (AutoCloseable) type.getConstructor().newInstance();
        try {
            Method enable = type.getMethod("enable", String.class);
            Method onEvent = type.getMethod("onEvent", String.class, Consumer.class);
            for (String name : new String[] {BEGIN, SYNC, OPERATION}) {
                // every safepoint, however short: the histogram counts them all, and they are a few a second
                ((EventSettings) enable.invoke(stream, name)).withThreshold(Duration.ZERO).withoutStackTrace();
                onEvent.invoke(stream, name, handler);
            }
            // Nothing else is named here, on purpose: a setting this stream gave any other event would replace the
            // default (on) that a recording without a setting for it, e.g. one from default.jfc, gives the agent's
            // op events, and they would vanish from the operator's recordings. The agent asks ForeignRecordings
            // instead, so that this stream alone turns no op event on.
            // the stream keeps only what it has not handed on yet: its repository on disk stays small
            type.getMethod("setMaxAge", Duration.class).invoke(stream, Duration.ofSeconds(10));
            type.getMethod("setMaxSize", long.class).invoke(stream, 16L << 20);
            Set<Long> before = runningRecordings();
            // start() runs the stream on the calling thread until it is closed: a daemon thread of the agent's, since
            // JFR makes startAsync's thread a non-daemon one, which would keep a JVM whose main returned from exiting
            Method start = type.getMethod("start");
            Throwable[] failed = new Throwable[1];
            Thread runner = new Thread(() -> {
                try {
                    start.invoke(stream);
                } catch (Throwable t) {
                    failed[0] = t;
                }
            }, "stallscope-safepoint-stream");
            runner.setDaemon(true);
            runner.start();
            // The stream's recording is the one that begins running now. If two did, someone else started one in this
            // very instant: none is taken for the stream's, and the op events stay on as under any recording.
            Set<Long> own = runningRecordings();
            own.removeAll(before);
            long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
            while (own.isEmpty() && runner.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(2);
                own = runningRecordings();
                own.removeAll(before);
            }
            if (!runner.isAlive() && own.isEmpty()) {
                Throwable cause = failed[0] instanceof java.lang.reflect.InvocationTargetException
                    ? failed[0].getCause() : failed[0];
                throw new IllegalStateException("the safepoint stream did not start: " + cause, cause);
            }
            if (own.size() != 1) {
                own.clear();
            }
            for (long id : own) {
                ForeignRecordings.own(id);
            }
            return new SafepointStream(stream, own);
        } catch (ReflectiveOperationException | RuntimeException e) {
            closeQuietly(stream);
            throw e;
        } catch (InterruptedException e) {
            closeQuietly(stream);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the safepoint stream started", e);
        }
    }

    private static Set<Long> runningRecordings() {
        Set<Long> ids = new HashSet<>();
        for (Recording r : FlightRecorder.getFlightRecorder().getRecordings()) {
            if (r.getState() == RecordingState.RUNNING) {
                ids.add(r.getId());
            }
        }
        return ids;
    }

    @Override
    public void close() {
        closeQuietly(stream);
        for (long id : own) {
            ForeignRecordings.disown(id);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // stopping: nothing left to tell
        }
    }
}
