package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.Recording;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contended-locks finding names a lock's holders as the text report's lock list does: every thread that explains
 * a tenth of the waiting, else that none does. On a 200-thread storm it named one thread "held by" at 3% of the waiting
 * while the lock list said no thread explained 10%.
 */
class RankingHoldersTest {
    private final Recording rec = new Recording();

    private int thread(String name) {
        return rec.thread(0, name, rec.threads.size() + 1, 0);
    }

    /** A wait of {@code ms} on one monitor by {@code waiter}, its holder inferred as {@code holder}. */
    private static Wait wait(int waiter, int holder, long ms) {
        Wait w = new Wait(0, waiter, 0, ms * 1_000_000, "java.lang.Object@0x1", "java.lang.Object@0x1 (monitor)", "monitor",
                "Log.append", "Log.append:10", 0, true, -1);
        if (holder >= 0) w.holder = new Holder(holder, Holder.INFERRED, 0.5, 0, IoOp.NONE);
        return w;
    }

    private static Contention contention(Wait... waits) {
        Contention c = new Contention(waits[0]);
        for (Wait w : waits) c.add(w);
        return c;
    }

    @Test
    void aStormWhereEveryHolderExplainsLittleNamesNone() {
        int waiter = thread("waiter");
        Wait[] waits = new Wait[20];
        for (int i = 0; i < waits.length; i++) waits[i] = wait(waiter, thread("handler-" + i), 10);
        Contention c = contention(waits);

        assertThat(FindingDetector.holders(c, rec)).isEqualTo("; no one thread explains 10% of the waiting (20 holders seen)");
    }

    @Test
    void everyHolderWithATenthOrMoreIsNamedMostFirst() {
        int waiter = thread("waiter");
        int a = thread("handler-a");
        int b = thread("handler-b");
        int small = thread("handler-small");
        Contention c = contention(wait(waiter, b, 30), wait(waiter, a, 61), wait(waiter, small, 9));

        assertThat(FindingDetector.holders(c, rec)).isEqualTo("; held by handler-a (inferred, 61% of the waiting, confidence 0.50),"
                + " handler-b (inferred, 30% of the waiting, confidence 0.50)");
    }

    @Test
    void noHolderSeenSaysNothing() {
        Contention c = contention(wait(thread("waiter"), -1, 10));

        assertThat(FindingDetector.holders(c, rec)).isEmpty();
    }
}
