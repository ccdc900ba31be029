package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent keeps no dead thread's state and no subject alive: not on a broker that never stalls (no slow op ever
 * reads the registry), not for a deleted partition's log, and not after a detach.
 */
class ThreadStatesLifetimeTest extends UsesHooks {
    private static final String SEGMENT = "/var/lib/kafka/data/orders-0/00000000000000000000.log";

    private final Workers workers = new Workers();

    @AfterEach
    void stop() throws InterruptedException {
        workers.releaseAll();
    }

    @Test
    void tenThousandShortLivedThreadsLeaveNoDeadThreadsStateRegistered() throws Exception {
        Hooks.install(RecorderSink.fastPathOnly());
        for (int batch = 0; batch < 100; batch++) {
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                Thread t = new Thread(() -> Hooks.exit(Op.RECORDS_APPEND, Hooks.enter(Op.RECORDS_APPEND, SEGMENT),
                    SEGMENT, 100, null), "short-lived-" + batch + "-" + i);
                t.start();
                threads.add(t);
            }
            for (Thread t : threads) {
                t.join(10_000);
                assertThat(t.isAlive()).isFalse();
            }
        }
        // the next thread's first op is when the registry forgets: no slow op is needed for it
        CountDownLatch registered = new CountDownLatch(1);
        workers.start("data-plane-kafka-request-handler-0", () -> {
            Hooks.exit(Op.RECORDS_APPEND, Hooks.enter(Op.RECORDS_APPEND, SEGMENT), SEGMENT, 100, null);
            registered.countDown();
            Pauses.await(workers.release);
        });
        assertThat(registered.await(10, TimeUnit.SECONDS)).isTrue();

        int[] registeredAndDead = Traces.registeredAndDead();
        assertThat(registeredAndDead[1]).as("dead threads' states registered, of " + registeredAndDead[0]).isZero();
    }

    @Test
    void aSubjectInTheRingOfALiveThreadIsCollectable() throws Exception {
        Hooks.install(RecorderSink.fastPathOnly());
        AtomicReference<Object> handOver = new AtomicReference<>(new Object()); // a log, deleted meanwhile
        WeakReference<Object> subject = new WeakReference<>(handOver.get());
        CountDownLatch done = new CountDownLatch(1);
        Thread flusher = workers.start("kafka-scheduler-0", () -> {
            longOpOn(handOver);
            done.countDown();
            Pauses.await(workers.release);
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Traces.opsOf(flusher)).as("the op is in the ring").hasSize(1);

        assertThat(collected(subject)).as("the subject collected within 10 s of GCs").isTrue();
    }

    @Test
    void aPerRequestSubjectTheAgentKeepsInTheRingOutlivesItsRequest() throws Exception {
        Hooks.install(RecorderSink.fastPathOnly());
        Hooks.keepInRing(FetchInfo.class.getName()); // as the agent keeps a remote read's RemoteStorageFetchInfo
        AtomicReference<Object> handOver = new AtomicReference<>(new FetchInfo("tiered", 0));
        WeakReference<Object> subject = new WeakReference<>(handOver.get());
        CountDownLatch done = new CountDownLatch(1);
        Thread reader = workers.start("remote-log-reader-0", () -> {
            longOpOn(handOver); // the request is done with it: only the ring holds it now
            done.countDown();
            Pauses.await(workers.release);
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();

        for (int i = 0; i < 5; i++) {
            System.gc();
        }
        assertThat(subject.get()).as("kept through GCs").isNotNull();
        assertThat(Traces.opsOf(reader)).containsExactly("segment_flush 0 ended FetchInfo(tiered-0)");
    }

    /** Stands in for RemoteStorageFetchInfo: a small value that holds no file. */
    static final class FetchInfo {
        private final String topic;
        private final int partition;

        FetchInfo(String topic, int partition) {
            this.topic = topic;
            this.partition = partition;
        }

        @Override
        public String toString() {
            return "FetchInfo(" + topic + "-" + partition + ")";
        }
    }

    @Test
    void detachEmptiesTheRegistryAndReleasesTheSubjectsOfOpsStillOpen() throws Exception {
        Hooks.install(RecorderSink.fastPathOnly());
        AtomicReference<Object> handOver = new AtomicReference<>(new Object());
        WeakReference<Object> subject = new WeakReference<>(handOver.get());
        CountDownLatch open = new CountDownLatch(1);
        Thread roller = workers.start("data-plane-kafka-request-handler-1", () -> {
            long start = Hooks.enter(Op.LOG_ROLL, handOver.getAndSet(null));
            open.countDown();
            Pauses.await(workers.release);
            Hooks.exit(Op.LOG_ROLL, start, null, -1, null);
        });
        assertThat(open.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Traces.registered(roller)).isTrue();

        Hooks.install(null);

        assertThat(Traces.registeredAndDead()[0]).as("states registered after detach").isZero();
        assertThat(collected(subject)).as("the open op's subject collected within 10 s of GCs").isTrue();
    }

    /** One op of 1 ms or more (so it goes into the ring) on what {@code handOver} holds, which it then drops. */
    private static void longOpOn(AtomicReference<Object> handOver) {
        Object subject = handOver.getAndSet(null);
        long start = Hooks.enter(Op.SEGMENT_FLUSH, subject);
        Pauses.sleepAtLeast(2);
        Hooks.exit(Op.SEGMENT_FLUSH, start, subject, -1, null);
    }

    private static boolean collected(WeakReference<Object> ref) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (ref.get() != null && System.nanoTime() < deadline) {
            System.gc();
        }
        return ref.get() == null;
    }
}
