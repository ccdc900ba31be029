package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SampleBlock;
import io.stallscope.analyzer.model.SourceFile;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The holder candidates of a lock site: every sample inside the site's method and not waiting there. */
class SiteIndexTest {
    private static final String INNER = "kafka.log.UnifiedLog.append";
    private static final String OUTER = "kafka.cluster.Partition.appendRecordsToLeader";

    @Test
    void aSiteDroppedForAWaiterIsStillFoundInTheStacksAfterIt() {
        Recording rec = new Recording();
        rec.files.add(new SourceFile(0, "test.jfr"));
        int waiter = rec.thread(0, "data-plane-kafka-request-handler-0", 70, 1);
        int holder = rec.thread(0, "data-plane-kafka-request-handler-1", 71, 2);
        // Seen first: a thread waiting for the lock taken in INNER, inside OUTER. For INNER it is a waiter, not a
        // candidate; for OUTER (a lock taken further out, held while it waits) it is one.
        int waiting = stack(rec, "jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park",
                "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire", "java.util.concurrent.locks.ReentrantLock.lock",
                INNER, OUTER);
        // Seen after: the holder of INNER's lock, writing.
        int holding = stack(rec, "sun.nio.ch.FileChannelImpl.write", "org.apache.kafka.common.record.FileRecords.append",
                "kafka.log.LocalLog.append", INNER, OUTER);
        assertThat(new StackClassifier(rec.frames, rec.stacks).lockWait(waiting)).as("the waiter's stack waits at a lock").isNotNull();

        SampleBlock.Builder b = new SampleBlock.Builder();
        long t0 = 1_700_000_000_000_000_000L;
        for (int i = 0; i < 10; i++) {
            b.add(t0 + i * 1_000_000L, waiter, waiting, (byte) 0, 1);
            b.add(t0 + i * 1_000_000L + 500_000L, holder, holding, (byte) 0, 1);
        }
        SampleBlock block = b.build();
        block.remap(new int[] {waiter, holder}, identity(rec.stacks.size()));
        rec.samples.add(block);
        rec.samples.sort();
        StackClassifier classifier = new StackClassifier(rec.frames, rec.stacks);
        classifier.precompute();

        Map<Integer, Map<String, SiteIndex>> sites = SiteIndex.build(rec, classifier, new long[] {1_000_000L}, List.of(INNER, OUTER));

        assertThat(candidates(sites.get(0).get(INNER))).as("INNER's candidates: the holder's samples").isEqualTo(10);
        assertThat(candidates(sites.get(0).get(OUTER))).as("OUTER's candidates: both threads' samples").isEqualTo(20);
    }

    private static int stack(Recording rec, String... names) {
        int[] f = new int[names.length];
        for (int i = 0; i < names.length; i++) f[i] = rec.frames.intern(names[i], 0, true);
        return rec.stacks.intern(f);
    }

    private static int[] identity(int n) {
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) ids[i] = i;
        return ids;
    }

    private static int candidates(SiteIndex site) {
        int n = 0;
        for (SiteIndex.Part p : site.parts) n += p.time.length;
        return n;
    }
}
