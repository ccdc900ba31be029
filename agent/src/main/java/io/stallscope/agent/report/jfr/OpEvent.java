package io.stallscope.agent.report.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * The fields every Stallscope JFR event carries. The event is committed when the op ends, so its
 * start time is the op's end and {@link #opDuration} says how far back the op began: the span is
 * [startTime - opDuration, startTime]. (JFR offers no way to set an event's start after the fact,
 * and beginning an event on every call would cost every call an allocation.)
 */
@Category({"Stallscope", "Storage"})
@StackTrace(true)
public abstract class OpEvent extends Event {
    @Label("Operation")
    public String op;

    @Label("Operation Duration")
    @Timespan(Timespan.NANOSECONDS)
    public long opDuration;

    @Label("Thread Role")
    @Description("network, request_handler, scheduler, replica_fetcher, log_cleaner, controller or other")
    public String threadRole;

    @Label("Topic")
    public String topic;

    @Label("Partition")
    public int partition = -1;

    @Label("Bytes")
    @Description("Bytes moved, -1 when the op has no byte count")
    public long bytes = -1;

    @Label("Path")
    public String path;

    @Label("Failed")
    public boolean failed;
}
