package io.stallscope.agent.report.blame;

import io.stallscope.agent.bootstrap.Op;

/**
 * How an op waits on the disk itself, if it does: the evidence the device scope needs. Sharing a device proves
 * nothing by itself: in a stall of the whole device every op on it is slow, and the first to stall would be named
 * as the cause of all the others. Only an op that was reading the disk or forcing it to stable storage can have
 * held another op up through the device's queue, and only if it did not wait as that op did (two appends, two
 * fsyncs, two cold reads on one device are co-victims of whatever the device was doing).
 */
enum DiskWait {
    /** No wait of its own on the disk that blame can tell: a buffered write, a roll, an index resize, a lock wait. */
    NONE,
    /** An fsync: a segment's or a producer-state snapshot's (the snapshot write forces the file on 2.8-3.6). */
    FSYNC,
    /** A read that may go to the disk: a sendfile, the TLS read of a file, a segment read. */
    READ;

    static DiskWait of(int op) {
        switch (op) {
            case Op.SEGMENT_FLUSH:
            case Op.SNAPSHOT_FLUSH:
            case Op.SNAPSHOT_WRITE:
                return FSYNC;
            case Op.TRANSFER_TO:
            case Op.TLS_TRANSFER:
            case Op.SEGMENT_READ:
                return READ;
            default:
                return NONE;
        }
    }

    /** Whether {@code op}, on the same device as the slow {@code victimOp} and at the same time, can be what it waited behind. */
    static boolean canHoldUpOnDevice(int op, int victimOp) {
        DiskWait wait = of(op);
        return wait != NONE && wait != of(victimOp);
    }
}
