package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.SegmentRead")
@Label("Segment Read")
@Description("LogSegment.read on the fetch path")
public final class SegmentRead extends OpEvent {
}
