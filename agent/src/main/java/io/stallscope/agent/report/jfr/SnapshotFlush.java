package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.SnapshotFlush")
@Label("Snapshot Flush")
@Description("Producer-state snapshot fsync moved off the roll (Kafka 3.7+)")
public final class SnapshotFlush extends OpEvent {
}
