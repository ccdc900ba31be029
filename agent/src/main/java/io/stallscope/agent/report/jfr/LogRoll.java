package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.LogRoll")
@Label("Log Roll")
@Description("Log/UnifiedLog.roll: a new active segment, under the partition lock")
public final class LogRoll extends OpEvent {
}
