package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.model.IoEvents;

import java.util.function.IntPredicate;

/**
 * The recorded I/O events the findings read, for a recording analysed window by window: once a window's holders are
 * attributed, only these need to stay ({@link IoEvents#retain}). They are
 * <ul>
 * <li>every fsync and file read (jdk.FileForce, jdk.FileRead), of any length: {@link FindingDetector} adds up each
 * thread's time in them, and {@link WriteBehindSendfile} pairs a read with a stalled write or rules a thread out of
 * the sampled-sendfile pairing by them;</li>
 * <li>a jdk.FileWrite of at least {@link WriteBehindSendfile#MIN_WRITE_NANOS}: the only writes a finding reads.</li>
 * </ul>
 * Not socket calls nor shorter writes, which are nearly all of a handler storm's events: {@link FindingDetector}
 * leaves them out by type, {@link WriteBehindSendfile} by type and length.
 */
public final class FindingsIo {
    private FindingsIo() {
    }

    /** Whether the findings read event {@code i} of {@code io}; types are looked up now, so ask again after more are added. */
    public static IntPredicate read(IoEvents io) {
        boolean[] always = new boolean[io.typeCount()];
        for (int k = 0; k < always.length; k++) always[k] = everyEvent(FindingDetector.eventOp(io.typeName(k)));
        int fileWrite = io.typeNumber("FileWrite");
        return i -> {
            int type = io.typeNumber(i);
            return always[type] || type == fileWrite && io.end(i) - io.start(i) >= WriteBehindSendfile.MIN_WRITE_NANOS;
        };
    }

    /** The calls whose every recorded event a finding reads: fsync and file reads ({@link FindingDetector#ioInView}). */
    static boolean everyEvent(IoOp op) {
        return op == IoOp.FSYNC || op == IoOp.FILE_READ;
    }
}
