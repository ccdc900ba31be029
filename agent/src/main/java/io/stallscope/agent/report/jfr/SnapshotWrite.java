package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.SnapshotWrite")
@Label("Snapshot Write")
@Description("Producer-state snapshot file write, with its fsync where the version does it inline")
public final class SnapshotWrite extends OpEvent {
}
