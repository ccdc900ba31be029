package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each timed op leaves on its thread for other threads' blame: the thread in the registry, its open ops with
 * their subjects, a ring of its recent long ops; a slow op naming another thread's op of the same file, and
 * nothing else; and none of it allocating on the fast path.
 */
class InFlightOpsTest extends UsesHooks {
    private static final String NETWORK_THREAD = "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0";
    private static final String SEGMENT = "/var/lib/kafka/data/orders-0/00000000000000000000.log";
    private static final String OTHER_PARTITION = "/mnt/disk2/kafka/payments-3/00000000000000000000.log";

    private final Workers workers = new Workers();
    private final CountDownLatch release = workers.release;

    @AfterEach
    void stop() throws InterruptedException {
        workers.releaseAll();
    }

    @Test
    void aThreadThatRanATimedOpIsRegisteredAndItsOpenOpsAreReadWithTheirSubjects() throws Exception {
        Hooks.install(BlameSink.of(Op.RECORDS_APPEND, Thread.currentThread(), new ArrayList<>()));
        CountDownLatch inside = new CountDownLatch(1);
        Thread t = worker("roller", () -> {
            long roll = Hooks.enter(Op.LOG_ROLL, "/d/orders-0");
            long write = Hooks.enter(Op.SNAPSHOT_WRITE, "/d/orders-0/00000000000000000042.snapshot");
            inside.countDown();
            Pauses.await(release);
            Hooks.exit(Op.SNAPSHOT_WRITE, write, "/d/orders-0/00000000000000000042.snapshot", -1, null);
            Hooks.exit(Op.LOG_ROLL, roll, "/d/orders-0", -1, null);
        });
        Thread idle = worker("never-timed", () -> Pauses.await(release));
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(Traces.opsOf(t)).containsExactly(
            "log_roll 0 running /d/orders-0",
            "snapshot_write 1 running /d/orders-0/00000000000000000042.snapshot");
        assertThat(Traces.registered(idle)).as("a thread that never ran a timed op").isFalse();

        release.countDown();
        t.join(10_000);
        assertThat(Traces.registered(t)).as("a dead thread's state is dropped").isFalse();
    }

    @Test
    void theRingKeepsTheLastLongOpsNewestFirstAfterTheyEnded() throws Exception {
        Hooks.install(BlameSink.of(Op.RECORDS_APPEND, Thread.currentThread(), new ArrayList<>()));
        CountDownLatch done = new CountDownLatch(1);
        Thread t = worker("flusher", () -> {
            for (int i = 0; i < 20; i++) {
                long start = Hooks.enter(Op.SEGMENT_FLUSH, "s" + i);
                Pauses.sleepAtLeast(2);
                Hooks.exit(Op.SEGMENT_FLUSH, start, "s" + i, -1, null);
            }
            done.countDown();
            Pauses.await(release);
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        List<String> expected = new ArrayList<>();
        for (int i = 19; i >= 4; i--) {
            expected.add("segment_flush 0 ended s" + i);
        }
        assertThat(Traces.opsOf(t)).as("16 kept, the oldest 4 overwritten").isEqualTo(expected);
    }

    @Test
    void aSlowAppendNamesTheSendfileOfItsFileRunningOrJustEndedAndNothingElse() throws Exception {
        List<String> said = Collections.synchronizedList(new ArrayList<>());
        Hooks.install(BlameSink.of(Op.RECORDS_APPEND, Thread.currentThread(), said));
        CountDownLatch sending = new CountDownLatch(1);
        CountDownLatch endSend = new CountDownLatch(1);
        CountDownLatch sent = new CountDownLatch(1);
        worker(NETWORK_THREAD, () -> {
            long start = Hooks.enter(Op.TRANSFER_TO, SEGMENT);
            sending.countDown();
            Pauses.await(endSend);
            Hooks.exit(Op.TRANSFER_TO, start, SEGMENT, 4096, null);
            sent.countDown();
            Pauses.await(release);
        });
        assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();

        append(OTHER_PARTITION, 20); // another partition on another disk, the same moment: never paired
        append(SEGMENT, 20);          // the same file while the sendfile runs
        long start = Hooks.enter(Op.RECORDS_APPEND, SEGMENT);
        Pauses.sleepAtLeast(20);
        endSend.countDown();          // the sendfile ends first: the ring still has it
        assertThat(sent.await(10, TimeUnit.SECONDS)).isTrue();
        Hooks.exit(Op.RECORDS_APPEND, start, SEGMENT, 100, null);
        append(SEGMENT, 20);          // after the sendfile ended: nothing overlapped it

        assertThat(said).hasSize(4);
        assertThat(said.get(0)).isEqualTo("none");
        assertThat(said.get(1)).matches("behind transfer_to [0-9.]+ ms so far of the same file on network thread \""
            + java.util.regex.Pattern.quote(NETWORK_THREAD) + "\", overlapping [0-9.]+ ms");
        assertThat(said.get(2)).startsWith("behind transfer_to ").doesNotContain("so far")
            .contains("of the same file on network thread");
        assertThat(said.get(3)).isEqualTo("none");
    }

    @Test
    void theFastPathAllocatesNothingWithOtherThreadsOpsInFlight() throws Exception {
        Hooks.install(RecorderSink.fastPathOnly());
        CountDownLatch sending = new CountDownLatch(1);
        worker(NETWORK_THREAD, () -> {
            long start = Hooks.enter(Op.TRANSFER_TO, SEGMENT);
            sending.countDown();
            Pauses.await(release);
            Hooks.exit(Op.TRANSFER_TO, start, SEGMENT, 1, null);
        });
        assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();
        String name = Thread.currentThread().getName();
        Thread.currentThread().setName("data-plane-kafka-request-handler-0");
        long allocated;
        try {
            com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long id = Thread.currentThread().getId();
            appendFast(20_000); // the thread's state, its role, the meters: made once
            long before = threads.getThreadAllocatedBytes(id);
            appendFast(100_000);
            allocated = threads.getThreadAllocatedBytes(id) - before;
        } finally {
            Thread.currentThread().setName(name);
        }
        // a record or a boxed long per call would be 1.6 MB and more; the counter's own reading is a few hundred bytes
        assertThat(allocated).as("bytes allocated by 100,000 timed calls").isLessThan(10_000);
    }

    private static void appendFast(int calls) {
        for (int i = 0; i < calls; i++) {
            long start = Hooks.enter(Op.RECORDS_APPEND, SEGMENT);
            long nested = Hooks.enter(Op.INDEX_RESIZE, SEGMENT);
            Hooks.exit(Op.INDEX_RESIZE, nested, SEGMENT, -1, null);
            Hooks.exit(Op.RECORDS_APPEND, start, SEGMENT, 100, null);
        }
    }

    private static void append(String path, long millis) {
        long start = Hooks.enter(Op.RECORDS_APPEND, path);
        Pauses.sleepAtLeast(millis);
        Hooks.exit(Op.RECORDS_APPEND, start, path, 100, null);
    }

    private Thread worker(String name, Runnable body) {
        return workers.start(name, body);
    }
}
