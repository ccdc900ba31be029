package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.SegmentFlush")
@Label("Segment Flush")
@Description("LogSegment.flush: fsync of a segment's log and indexes")
public final class SegmentFlush extends OpEvent {
}
