package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.RecordsAppend")
@Label("Records Append")
@Description("FileRecords.append: write(2) of a batch to the active segment")
public final class RecordsAppend extends OpEvent {
}
