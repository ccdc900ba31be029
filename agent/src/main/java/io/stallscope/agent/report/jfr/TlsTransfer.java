package io.stallscope.agent.report.jfr;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

@Name("stallscope.TlsTransfer")
@Label("TLS Transfer")
@Description("SslTransportLayer.transferFrom: a TLS listener reads the file with FileChannel.read")
public final class TlsTransfer extends OpEvent {
}
