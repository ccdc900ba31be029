package io.stallscope.agent.report.jfr;

import io.stallscope.agent.bootstrap.Op;

import java.util.function.Supplier;

/** Creates the JFR event type of each op. The array is indexed by op id. */
public final class OpEvents {
    @SuppressWarnings("unchecked")
    private static final Supplier<OpEvent>[] FACTORIES = new Supplier[Op.COUNT];

    static {
        FACTORIES[Op.SEGMENT_FLUSH] = SegmentFlush::new;
        FACTORIES[Op.RECORDS_APPEND] = RecordsAppend::new;
        FACTORIES[Op.INDEX_RESIZE] = IndexResize::new;
        FACTORIES[Op.TRANSFER_TO] = TransferTo::new;
        FACTORIES[Op.LOG_ROLL] = LogRoll::new;
        FACTORIES[Op.SNAPSHOT_TAKE] = SnapshotTake::new;
        FACTORIES[Op.SNAPSHOT_WRITE] = SnapshotWrite::new;
        FACTORIES[Op.SNAPSHOT_FLUSH] = SnapshotFlush::new;
        FACTORIES[Op.SEGMENT_INACTIVE] = SegmentInactive::new;
        FACTORIES[Op.SEGMENT_READ] = SegmentRead::new;
        FACTORIES[Op.TLS_TRANSFER] = TlsTransfer::new;
    }

    private OpEvents() {
    }

    public static OpEvent create(int op) {
        return FACTORIES[op].get();
    }
}
