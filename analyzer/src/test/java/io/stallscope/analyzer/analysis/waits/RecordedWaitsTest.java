package io.stallscope.analyzer.analysis.waits;

import io.stallscope.analyzer.model.LockEvent;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The recorded waits in columns, and the rough time order the analysis walks them in. */
class RecordedWaitsTest {
    @Test
    void roughTimeOrderIsEveryWaitOnceInBucketsOfTimeAndListOrderWithinOne() {
        Recording rec = new Recording();
        rec.files.add(new SourceFile(0, "test.jfr"));
        int thread = rec.thread(0, "data-plane-kafka-request-handler-0", 70, 1);
        RecordedWaits waits = new RecordedWaits(rec, 0);
        RecordedWaits.Names names = new RecordedWaits.Names("0:monitor:1", "lock", "monitor", "m", "m");
        // Thread buffers written one after the other: starts out of order, some equal.
        Random r = new Random(7);
        long t0 = 1_700_000_000_000_000_000L;
        int n = 10_000;
        for (int i = 0; i < n; i++) {
            long start = t0 + (long) r.nextInt(5_000) * 1_000L;
            rec.locks.add(LockEvent.Kind.MONITOR, start, start + 1_000_000L, thread, 0, "java.lang.Object", 1L, -1);
            waits.add(i, names);
        }

        int[] order = waits.roughTimeOrder();

        assertThat(order.clone()).satisfies(o -> {
            Arrays.sort(o);
            for (int i = 0; i < n; i++) assertThat(o[i]).isEqualTo(i);
        });
        // Buckets are a power of two nanoseconds no wider than the span over the waits: never more than that apart
        // backwards, and within a bucket (equal starts included) in list order.
        long span = 4_999_000L;
        long width = Long.highestOneBit(Math.max(1, span / n)) * 2;
        for (int k = 1; k < n; k++) {
            long before = waits.start(order[k - 1]);
            long now = waits.start(order[k]);
            assertThat(before - now).isLessThan(width);
            if (before == now) assertThat(order[k]).isGreaterThan(order[k - 1]);
        }
        assertThat(new RecordedWaits(rec, 0).roughTimeOrder()).isEmpty();
    }
}
