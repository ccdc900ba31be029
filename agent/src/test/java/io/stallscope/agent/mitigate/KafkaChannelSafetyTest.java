package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import net.bytebuddy.agent.ByteBuddyAgent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A warm-up must leave Kafka's own segment channel alone. On JDK 17 FileChannelImpl.size() and map() run
 * under the channel's positionLock, which Kafka's append (FileChannel.write) holds for its write(2); and an
 * interrupted thread entering size() or map() of an InterruptibleChannel closes that channel, after which
 * Kafka's next append fails and takes the log dir offline. Real channels of real files; the append in
 * flight is the real lock held by another thread.
 */
class KafkaChannelSafetyTest {
    private static final int MIB = 1 << 20;
    private static Field positionLock;

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MitigationMetrics metrics = new MitigationMetrics(registry, BrokerLog.get());

    @BeforeAll
    static void openFileChannelImpl() throws Exception {
        Instrumentation inst = ByteBuddyAgent.install();
        Module base = Object.class.getModule();
        Module self = KafkaChannelSafetyTest.class.getModule();
        inst.redefineModule(base, Set.of(), Map.of(), Map.of("sun.nio.ch", Set.of(self)), Set.of(), Map.of());
        positionLock = Class.forName("sun.nio.ch.FileChannelImpl").getDeclaredField("positionLock");
        positionLock.setAccessible(true);
    }

    private SliceWarmer slices() {
        return new SliceWarmer(Unmapper.find(new String[1]), SliceWarmerTest.advice());
    }

    private FetchWarmer warmer(SliceWarmer slices, AheadWarmer ahead) {
        return new FetchWarmer(0, 4 * MIB, 8 * MIB, 10_000_000_000L, slices, metrics.prefetch(), ahead);
    }

    private Path segment() throws Exception {
        return Files.write(dir.resolve("00000000000000000000.log"), new byte[4 * MIB]);
    }

    private double events(String event) {
        var c = registry.find("stallscope.mitigation.events").tag("mitigation", "prefetch").tag("event", event).counter();
        return c == null ? 0 : c.count();
    }

    /** Kafka's append in flight: holds the channel's positionLock, as FileChannelImpl.write does, until released. */
    private static final class AppendInFlight implements AutoCloseable {
        private final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;

        AppendInFlight(FileChannel kafka) throws Exception {
            Object lock = positionLock.get(kafka);
            thread = new Thread(() -> {
                synchronized (lock) {
                    held.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }, "kafka-append-in-flight");
            thread.start();
            assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
        }

        @Override
        public void close() throws InterruptedException {
            release.countDown();
            thread.join(10_000);
        }
    }

    @Test
    void aWarmUpDoesNotWaitForAnAppendInFlightOnKafkasChannel() throws Exception {
        Path f = segment();
        ExecutorService handler = Executors.newSingleThreadExecutor();
        try (FileChannel kafka = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE);
             AppendInFlight append = new AppendInFlight(kafka)) {
            FetchWarmer w = warmer(slices(), null);
            Future<Long> warmed = handler.submit(() -> w.warm(List.of(new FileSlice(kafka, f.toFile(), 0, MIB))));
            try {
                assertThat(warmed.get(10, TimeUnit.SECONDS)).isEqualTo(MIB);
            } catch (TimeoutException e) {
                fail("the warm-up waited 10 s for the positionLock of Kafka's channel, held by an append in flight");
            }
        } finally {
            handler.shutdownNow();
        }
    }

    @Test
    void anInterruptedThreadsWarmUpLeavesKafkasChannelOpen() throws Exception {
        Path f = segment();
        try (FileChannel kafka = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FetchWarmer w = warmer(slices(), null);
            Thread.currentThread().interrupt();
            try {
                w.warm(List.of(new FileSlice(kafka, f.toFile(), 0, MIB)));
            } finally {
                Thread.interrupted();
            }
            assertThat(kafka.isOpen()).as("Kafka's channel after a warm-up on an interrupted thread").isTrue();
        }
    }

    @Test
    void stoppingTheReadAheadLeavesKafkasChannelOpen() throws Exception {
        Path f = segment();
        SliceWarmer slices = slices();
        AheadWarmer ahead = new AheadWarmer(slices, MIB, metrics.prefetch());
        try (FileChannel kafka = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            try (AppendInFlight append = new AppendInFlight(kafka)) {
                ahead.after(new FileSlice(kafka, f.toFile(), 0, MIB));
                // the worker either waits for the append (a warm-up through Kafka's channel) or is done already
                await(() -> blocked("stallscope-prefetch-ahead") || events("ahead_warmed") > 0);
                ahead.close();
            }
            await(() -> !alive("stallscope-prefetch-ahead"));
            assertThat(kafka.isOpen()).as("Kafka's channel after the read-ahead was stopped").isTrue();
        } finally {
            ahead.close();
        }
    }

    @Test
    void stoppingTheReadAheadDropsWhatIsQueuedAndReturns() throws Exception {
        Path f = segment();
        AheadWarmer ahead = new AheadWarmer(slices(), MIB, metrics.prefetch());
        try (FileChannel kafka = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            for (int i = 0; i < 8; i++) {
                ahead.after(new FileSlice(kafka, f.toFile(), 0, MIB));
            }
            long start = System.nanoTime();
            ahead.close();
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(5));
            await(() -> !alive("stallscope-prefetch-ahead"));
            assertThat(events("ahead_warmed") + events("ahead_dropped")).isEqualTo(8);
            assertThat(kafka.isOpen()).isTrue();
        }
    }

    private static boolean blocked(String name) {
        return Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> t.getName().equals(name) && t.getState() == Thread.State.BLOCKED);
    }

    private static boolean alive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not within 10 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
