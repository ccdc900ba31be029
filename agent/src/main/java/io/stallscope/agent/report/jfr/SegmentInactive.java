package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.SegmentInactive")
@Label("Segment Inactive")
@Description("LogSegment.onBecomeInactiveSegment: index trims and ftruncate on roll")
public final class SegmentInactive extends OpEvent {
}
