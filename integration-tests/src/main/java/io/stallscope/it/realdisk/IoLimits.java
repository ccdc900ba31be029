package io.stallscope.it.realdisk;

import java.util.ArrayList;
import java.util.List;

/**
 * Block-layer limits for the real disk's device, as the cgroup I/O controller applies them: bytes and
 * operations per second, for reads and writes; 0 means no limit. Reads are throttled only when they miss
 * the page cache; buffered writes only when they reach the device in the throttled process's own context
 * (fsync, and on cgroup v2 also writeback).
 */
public record IoLimits(long readBps, long writeBps, long readIops, long writeIops) {
    public static final IoLimits NONE = new IoLimits(0, 0, 0, 0);

    public IoLimits {
        if (readBps < 0 || writeBps < 0 || readIops < 0 || writeIops < 0) {
            throw new IllegalArgumentException("limits are >= 0 (0: none)");
        }
    }

    public static IoLimits readMiBps(double mib) {
        return NONE.withReadBps((long) (mib * 1048576));
    }

    public IoLimits withReadBps(long bps) {
        return new IoLimits(bps, writeBps, readIops, writeIops);
    }

    public IoLimits withWriteBps(long bps) {
        return new IoLimits(readBps, bps, readIops, writeIops);
    }

    public IoLimits withReadIops(long iops) {
        return new IoLimits(readBps, writeBps, iops, writeIops);
    }

    public IoLimits withWriteIops(long iops) {
        return new IoLimits(readBps, writeBps, readIops, iops);
    }

    /** For logs and reports, e.g. "reads 8 MiB/s, writes 20 IOPS" or "no limits". */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (readBps > 0 || readIops > 0) {
            parts.add("reads " + rate(readBps, readIops));
        }
        if (writeBps > 0 || writeIops > 0) {
            parts.add("writes " + rate(writeBps, writeIops));
        }
        return parts.isEmpty() ? "no limits" : String.join(", ", parts);
    }

    private static String rate(long bps, long iops) {
        List<String> r = new ArrayList<>();
        if (bps > 0) {
            r.add(bps % 1048576 == 0 ? bps / 1048576 + " MiB/s" : String.format(java.util.Locale.ROOT, "%.2f MiB/s", bps / 1048576.0));
        }
        if (iops > 0) {
            r.add(iops + " IOPS");
        }
        return String.join(" and ", r);
    }
}
