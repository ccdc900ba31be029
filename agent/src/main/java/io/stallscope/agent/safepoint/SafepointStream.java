package io.stallscope.agent.safepoint;

import jdk.jfr.EventSettings;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.consumer.RecordedEvent;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
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

    private final AutoCloseable stream;

    private SafepointStream(AutoCloseable stream) {
        this.stream = stream;
    }

    /**
     * Starts a stream that hands each safepoint event to {@code handler} on the stream's own thread.
     *
     * @param othersOff names of events the stream must not switch on, besides those registered now: the agent's own,
     *                  whose classes may load later
     *
     * @throws UnsupportedOperationException on a JVM without event streaming (before Java 14)
     */
    static SafepointStream start(Consumer<RecordedEvent> handler, Collection<String> othersOff)
        throws ReflectiveOperationException {
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
            // A recording enables every event that declares no setting in it, and an event class is enabled by
            // default: without this the stream would switch on the agent's own op events (and any application's) for
            // as long as the broker runs, committing each op to JFR's buffers where today only a recording someone
            // started does. Disabled here by name, which also holds for a type registered after the stream started.
            Method disable = type.getMethod("disable", String.class);
            Set<String> off = new HashSet<>(othersOff);
            for (EventType t : FlightRecorder.getFlightRecorder().getEventTypes()) {
                off.add(t.getName());
            }
            off.removeAll(Arrays.asList(BEGIN, SYNC, OPERATION));
            for (String name : off) {
                disable.invoke(stream, name);
            }
            // the stream keeps only what it has not handed on yet: no repository grows on disk
            type.getMethod("setMaxAge", Duration.class).invoke(stream, Duration.ofSeconds(10));
            type.getMethod("startAsync").invoke(stream);
        } catch (ReflectiveOperationException | RuntimeException e) {
            closeQuietly(stream);
            throw e;
        }
        return new SafepointStream(stream);
    }

    @Override
    public void close() {
        closeQuietly(stream);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // stopping: nothing left to tell
        }
    }
}
