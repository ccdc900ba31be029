package io.stallscope.agent.stopstart;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A broker's stop (LogManager.shutdown) or start (LogManager.loadLogs) and where its time went; the event spans
 * the log manager's part. Times are summed over the threads that closed or loaded logs.
 */
@Name(StopStartEvent.NAME)
@Label("Stop/Start Breakdown")
@Category({"Stallscope", "Storage"})
@Description("Where a broker's stop or start went: flushing, closing (index trim, time-index reads, truncation),"
    + " checkpoints, loading and recovery, per log dir, and the slowest logs")
@StackTrace(false)
public final class StopStartEvent extends Event {
    public static final String NAME = "stallscope.StopStartBreakdown";

    @Label("Kind")
    @Description("stop, start, or stop end (the end of the broker's shutdown: total and after the log manager)")
    public String kind;

    @Label("Since Shutdown Began")
    @Description("From the JVM's shutdown (signal) to the end of the log manager's stop (stop end: of the broker's); the log manager's time if none")
    @Timespan(Timespan.NANOSECONDS)
    public long total;

    @Label("After Log Manager")
    @Description("stop end: from the end of the log manager's stop to the end of the broker's (controller, raft)")
    @Timespan(Timespan.NANOSECONDS)
    public long afterLogManager;

    @Label("Flushing Logs")
    @Timespan(Timespan.NANOSECONDS)
    public long flushing;

    @Label("Closing Logs")
    @Timespan(Timespan.NANOSECONDS)
    public long closing;

    @Label("Closing Segments")
    @Timespan(Timespan.NANOSECONDS)
    public long closingSegments;

    @Label("Index Trim")
    @Timespan(Timespan.NANOSECONDS)
    public long indexTrim;

    @Label("Time-Index Last Entry")
    @Timespan(Timespan.NANOSECONDS)
    public long timeIndexLastEntry;

    @Label("File Truncation")
    @Timespan(Timespan.NANOSECONDS)
    public long fileTruncation;

    @Label("Checkpoints")
    @Timespan(Timespan.NANOSECONDS)
    public long checkpoints;

    @Label("Loading Logs")
    @Timespan(Timespan.NANOSECONDS)
    public long loading;

    @Label("Recovering Segments")
    @Timespan(Timespan.NANOSECONDS)
    public long recovering;

    @Label("Logs")
    public long logs;

    @Label("Segments")
    @Description("Closed (stop) or recovered (start)")
    public long segments;

    @Label("Index Files Trimmed")
    public long indexFilesTrimmed;

    @Label("Bytes Flushed")
    @Description("stop: the sizes of the segments the logs' flushes wrote (each whole: at most that much was dirty)")
    @DataAmount
    public long bytesFlushed;

    @Label("Previous Stop")
    @Description("start: clean, NOT clean in ..., or unknown")
    public String previousStop;

    @Label("Per Log Dir")
    public String perLogDir;

    @Label("Slowest Logs")
    public String slowestLogs;
}
