package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.IndexResize")
@Label("Index Resize")
@Description("AbstractIndex.resize: remap (and ftruncate) of an offset or time index")
public final class IndexResize extends OpEvent {
}
