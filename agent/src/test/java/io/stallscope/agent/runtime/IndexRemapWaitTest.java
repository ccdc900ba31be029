package io.stallscope.agent.runtime;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.bootstrap.OpSink;
import io.stallscope.agent.instrument.advice.OpId;
import io.stallscope.agent.instrument.advice.RemapWaitAdvice;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import io.stallscope.agent.kafka.KafkaTargets;
import io.stallscope.agent.kafka.WovenKafka;
import net.bytebuddy.asm.Advice;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * index_remap_wait (KAFKA-19390's remap lock): a lookup's wait behind a resize that holds or is queued for the index's
 * remap lock is timed, and its slow line names that resize, never another lookup waiting as it did; an uncontended
 * lookup times nothing. First on a plain lock through the hooks, then on Kafka's own AbstractIndex of 3.9.2 and 4.4.0
 * with the agent's advice woven in, as the broker runs it.
 */
class IndexRemapWaitTest extends UsesHooks {
    private static final String INDEX = "/var/lib/kafka/data/orders-3/00000000000000000000.index";
    private static final String SEGMENT = "/var/lib/kafka/data/orders-3/00000000000000000000.log";
    private static final String RESIZER = "data-plane-kafka-request-handler-5";
    private static final String VICTIM = "data-plane-kafka-request-handler-1";
    private static final String CO_VICTIM = "data-plane-kafka-request-handler-2";
    private static final long HELD_MS = 60;

    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Workers workers = new Workers();

    @AfterEach
    void releaseTheThreads() throws InterruptedException {
        workers.releaseAll();
    }

    @Test
    void anUncontendedLockTimesNothing() throws Exception {
        OpSink recorder = RecorderSink.withLines(registry, "slow.threshold=0ms", lines);
        Hooks.install(recorder);
        ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        Hooks.awaitShared(Op.INDEX_REMAP_WAIT, INDEX, lock);
        lock.readLock().lock(); // another lookup holds it shared: still nothing to wait for
        try {
            Hooks.awaitShared(Op.INDEX_REMAP_WAIT, INDEX, lock);
        } finally {
            lock.readLock().unlock();
        }
        RecorderSink.drain(recorder);
        assertThat(lines).isEmpty();
        assertThat(registry.scrape()).doesNotContain("op=\"index_remap_wait\",role=\"other\",le");
        assertThat(lock.getReadLockCount()).isZero();
    }

    /**
     * A lookup holds the lock shared (a page fault, say); the resize queues for it exclusively; two lookups queue
     * behind the resize. Each waiting lookup's line names the resize, not the other waiting lookup.
     */
    @Test
    void aLookupQueuedBehindAResizeNamesTheResize() throws Exception {
        OpSink recorder = RecorderSink.withLines(registry,
            "slow.threshold.index_remap_wait=30ms,slow.threshold.index_resize=30ms", lines);
        Hooks.install(recorder);
        ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        thread("slow-lookup", () -> {
            lock.readLock().lock();
            held.countDown();
            Pauses.await(letGo);
            lock.readLock().unlock();
        });
        assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        thread(RESIZER, () -> {
            long start = Hooks.enter(Op.INDEX_RESIZE, INDEX);
            lock.writeLock().lock();
            lock.writeLock().unlock();
            Hooks.exit(Op.INDEX_RESIZE, start, INDEX, -1, null);
        });
        Pauses.until(() -> lock.getQueueLength() == 1);
        CountDownLatch coVictim = thread(CO_VICTIM, () -> Hooks.awaitShared(Op.INDEX_REMAP_WAIT, INDEX, lock));
        Pauses.until(() -> lock.getQueueLength() == 2);
        // as in Kafka, inside the fetch's read and lookup, which stay under their own (default) threshold
        CountDownLatch victim = thread(VICTIM, () -> {
            long read = Hooks.enter(Op.SEGMENT_READ, SEGMENT);
            long lookup = Hooks.enter(Op.INDEX_LOOKUP, INDEX);
            Hooks.awaitShared(Op.INDEX_REMAP_WAIT, INDEX, lock);
            Hooks.exit(Op.INDEX_LOOKUP, lookup, INDEX, -1, null);
            Hooks.exit(Op.SEGMENT_READ, read, SEGMENT, -1, null);
        });
        Pauses.until(() -> lock.getQueueLength() == 3);
        Pauses.sleepAtLeast(HELD_MS);
        letGo.countDown();
        assertThat(victim.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(coVictim.await(10, TimeUnit.SECONDS)).isTrue();
        RecorderSink.drain(recorder);

        for (String thread : List.of(VICTIM, CO_VICTIM)) {
            assertThat(line(thread)).startsWith("slow op=index_remap_wait ").contains("path=" + INDEX).doesNotContain("inner=")
                .containsPattern(": behind index_resize [0-9.]+ ms( so far)? of the same file on request_handler thread \""
                    + RESIZER + "\", overlapping [0-9.]+ ms$");
        }
        assertThat(lock.getReadLockCount()).as("nothing left held").isZero();
        assertThat(lock.isWriteLocked()).isFalse();
    }

    /**
     * Kafka's own OffsetIndex, its AbstractIndex woven with the remap-wait and resize advice: a lookup queued behind
     * a resize (itself waiting for a lookup that holds the lock) is timed and paired, and returns what it returns
     * without the agent.
     */
    @ParameterizedTest
    @ValueSource(strings = {"3.9.2", "4.4.0"})
    void kafkasOwnIndexLookupWaitsBehindItsResize(String version, @TempDir Path tmp) throws Exception {
        String abstractIndex = "org.apache.kafka.storage.internals.log.AbstractIndex";
        byte[] woven = WovenKafka.weave(version, abstractIndex,
            Advice.withCustomMapping().bind(OpId.class, Op.INDEX_REMAP_WAIT).to(RemapWaitAdvice.class)
                .on(KafkaTargets.INDEX_REMAP_READ_LOCK.advisable()),
            Advice.withCustomMapping().bind(OpId.class, Op.INDEX_RESIZE).to(ThisAdvice.class)
                .on(KafkaTargets.INDEX_RESIZE.advisable()));
        try (WovenKafka kafka = WovenKafka.of(version, true, Map.of(abstractIndex, woven))) {
            Class<?> offsetIndex = kafka.kafkaClass("org.apache.kafka.storage.internals.log.OffsetIndex");
            File file = Files.createDirectories(tmp.resolve("orders-3")).resolve("00000000000000000000.index").toFile();
            Object index = offsetIndex.getConstructor(File.class, long.class, int.class).newInstance(file, 0L, 1 << 20);
            for (int i = 0; i < 100; i++) {
                offsetIndex.getMethod("append", long.class, int.class).invoke(index, i * 10L, i * 4096);
            }
            String expected = lookup(offsetIndex, index, 555);
            Field field = kafka.kafkaClass(abstractIndex).getDeclaredField("remapLock");
            field.setAccessible(true);
            ReentrantReadWriteLock lock = (ReentrantReadWriteLock) field.get(index);

            OpSink recorder = RecorderSink.withLines(registry, "slow.threshold=30ms", lines);
            Hooks.install(recorder);
            assertThat(lookup(offsetIndex, index, 555)).isEqualTo(expected);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            thread("slow-lookup", () -> {
                lock.readLock().lock(); // what a lookup page-faulting in a cold index holds
                held.countDown();
                Pauses.await(letGo);
                lock.readLock().unlock();
            });
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
            thread(RESIZER, () -> {
                try {
                    offsetIndex.getMethod("resize", int.class).invoke(index, 2 << 20);
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            });
            Pauses.until(() -> lock.getQueueLength() == 1);
            AtomicReference<String> found = new AtomicReference<>();
            CountDownLatch victim = thread(VICTIM, () -> found.set(lookup(offsetIndex, index, 555)));
            Pauses.until(() -> lock.getQueueLength() == 2);
            Pauses.sleepAtLeast(HELD_MS);
            letGo.countDown();
            assertThat(victim.await(10, TimeUnit.SECONDS)).isTrue();
            RecorderSink.drain(recorder);

            System.out.println(version + ": " + line(VICTIM)); // the line as an operator reads it
            assertThat(found.get()).isEqualTo(expected);
            assertThat(line(VICTIM)).startsWith("slow op=index_remap_wait ").contains("topic=orders partition=3")
                .containsPattern(": behind index_resize [0-9.]+ ms( so far)? of the same file on request_handler thread \""
                    + RESIZER + "\", overlapping [0-9.]+ ms$");
            assertThat(lock.getReadLockCount()).as("nothing left held").isZero();
            offsetIndex.getMethod("close").invoke(index);
        }
    }

    private static String lookup(Class<?> offsetIndex, Object index, long offset) {
        try {
            return String.valueOf(offsetIndex.getMethod("lookup", long.class).invoke(index, offset));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private String line(String thread) {
        return lines.stream().filter(l -> l.contains("thread=\"" + thread + "\"")).findFirst()
            .orElseThrow(() -> new AssertionError("no line of " + thread + " in " + lines));
    }

    /** A worker that runs body, then lives on until the test ends (a dead thread's ops leave the registry). */
    private CountDownLatch thread(String name, Runnable body) {
        CountDownLatch done = new CountDownLatch(1);
        workers.start(name, () -> {
            body.run();
            done.countDown();
            Pauses.await(workers.release);
        });
        return done;
    }
}
