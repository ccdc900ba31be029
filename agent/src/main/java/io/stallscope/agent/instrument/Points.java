package io.stallscope.agent.instrument;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Every instrumentation point: the timing points in op order, then those that time nothing of their own. */
public final class Points {
    private Points() {
    }

    public static List<InstrumentationPoint> all() {
        return Collections.unmodifiableList(Arrays.asList(
            new SegmentFlushPoint(),
            new RecordsAppendPoint(),
            new IndexResizePoint(),
            new TransferToPoint(),
            new LogRollPoint(),
            new SnapshotTakePoint(),
            new SnapshotWritePoint(),
            new SnapshotFlushPoint(),
            new SegmentInactivePoint(),
            new SegmentReadPoint(),
            new TlsTransferPoint(),
            new LogAppendPoint(),
            new IndexLookupPoint(),
            new IndexRemapWaitPoint(),
            new RemoteFetchPoint(),
            new RemoteFetchIndexPoint(),
            new RemoteCopyPoint(),
            new RemoteDeletePoint(),
            new RemoteQueueWaitPoint(),
            new RemoteReadPoint(),
            new RemoteIndexLoadPoint(),
            new RemoteIndexLookupPoint(),
            new RemoteFetchExpiryPoint()));
    }
}
