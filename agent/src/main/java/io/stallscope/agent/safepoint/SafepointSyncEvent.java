package io.stallscope.agent.safepoint;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Timestamp;

/**
 * A slow time to safepoint, written when the agent learns of it (about a second after, from the JVM's own events):
 * its own start and length are in fields, so a reader places it where it happened.
 */
@Name(SafepointSyncEvent.NAME)
@Label("Slow Safepoint Sync")
@Category({"Stallscope", "Safepoint"})
@Description("A safepoint whose synchronization took at least slow.threshold.safepoint_sync: every thread of the"
    + " broker stopped and waited for the last ones still running")
@StackTrace(false)
public final class SafepointSyncEvent extends Event {
    public static final String NAME = "stallscope.SafepointSync";

    @Label("Safepoint Id")
    public long safepointId;

    @Label("VM Operation")
    public String operation;

    @Label("Sync Start")
    @Timestamp(Timestamp.MILLISECONDS_SINCE_EPOCH)
    public long syncStart;

    @Label("Sync Time")
    @Timespan(Timespan.NANOSECONDS)
    public long syncTime;

    @Label("Running At Start")
    @Description("Threads still running Java code when the VM asked them to stop (-1: the JVM did not say)")
    public int runningAtStart;

    @Label("Threads")
    public int threads;

    @Label("Behind Thread")
    @Description("The thread whose index lookup ran all through the sync, the one most likely holding it up; null when none")
    public String behindThread;

    @Label("Behind Op")
    public String behindOp;

    @Label("Behind Path")
    public String behindPath;
}
