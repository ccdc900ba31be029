package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.SnapshotTake")
@Label("Snapshot Take")
@Description("ProducerStateManager.takeSnapshot on roll")
public final class SnapshotTake extends OpEvent {
}
