package io.stallscope.agent.holes;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** Offsets missing between two segments of a log, found at its recovery. */
@Name(LogHoleEvent.NAME)
@Label("Log Hole")
@Category({"Stallscope", "Storage"})
@Description("Offsets missing between two segments of a log that cannot legitimately have a gap (a power-cut hole),"
    + " found at recovery: Kafka serves past them and no follower refetches them")
@StackTrace(false)
public final class LogHoleEvent extends Event {
    public static final String NAME = "stallscope.LogHole";

    @Label("Partition")
    public String partition;

    @Label("First Missing Offset")
    public long firstMissing;

    @Label("Last Missing Offset")
    public long lastMissing;

    @Label("Missing Offsets")
    public long missing;

    @Label("Segment")
    @Description("The segment left short, ending before the hole")
    public String segment;

    @Label("Segment Size")
    @DataAmount(DataAmount.BYTES)
    public long segmentBytes;

    @Label("Next Segment")
    public String nextSegment;

    @Label("Next Segment Size")
    @DataAmount(DataAmount.BYTES)
    public long nextSegmentBytes;
}
