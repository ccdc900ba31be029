package io.stallscope.agent.stopstart;

/**
 * What the phases' advice calls. Nothing here may throw into Kafka or block it: a failure drops the
 * measurement, never the stop. While no stop or start is under way a call costs a volatile read or two.
 */
public final class StopStartHooks {
    /** Returned by {@link #enter} when the call is not timed; {@link #exit} then does nothing. */
    public static final long SKIP = Long.MIN_VALUE;

    private static volatile StopStartRecorder recorder;

    private StopStartHooks() {
    }

    static void install(StopStartRecorder r) {
        recorder = r;
    }

    static StopStartRecorder installed() {
        return recorder;
    }

    public static long enter(int phase, Object self, Object arg0, Object arg1) {
        StopStartRecorder r = recorder;
        if (r == null) {
            return SKIP;
        }
        try {
            return r.enter(Phase.ALL[phase], self, arg0, arg1);
        } catch (Throwable t) {
            return SKIP;
        }
    }

    public static void exit(int phase, long start, Object self, Object arg0) {
        if (start == SKIP) {
            return;
        }
        StopStartRecorder r = recorder;
        if (r == null) {
            return;
        }
        try {
            r.exit(Phase.ALL[phase], start, self, arg0);
        } catch (Throwable ignored) {
            // the broker's stop goes on whatever the breakdown does
        }
    }
}
