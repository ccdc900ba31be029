package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.TransferTo")
@Label("Transfer To")
@Description("FileChannel.transferTo: sendfile(2) from a file to a socket or file")
public final class TransferTo extends OpEvent {
}
