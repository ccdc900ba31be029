package io.stallscope.agent.mitigate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * index-warm on real mappings: an index whose pages are not in the page cache (a sparse file's holes, which the
 * kernel reads in as zeros on madvise, as it reads a cold index from the disk) is brought in before the lookup;
 * one over the size bound is left alone; a resident one is asked again only after a while on the same thread; one
 * unmapped meanwhile is counted, never touched.
 */
class IndexWarmerTest {
    private static final int USED = 64 * 1024;
    private static PageAdvice advice;

    @TempDir
    Path dir;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final IndexWarmMetrics metrics = new MitigationMetrics(registry, BrokerLog.get()).indexWarm();

    /** What IndexMaps reads: a field named mmap, as AbstractIndex has in every Kafka. */
    static final class TestIndex {
        volatile MappedByteBuffer mmap;

        TestIndex(MappedByteBuffer mmap) {
            this.mmap = mmap;
        }
    }

    @BeforeAll
    static void adviceOfThisJdk() {
        advice = SliceWarmerTest.advice();
    }

    /** A mapping of a new sparse file, none of it in the page cache, its position at the used bytes as Kafka sets it. */
    private MappedByteBuffer coldIndex(String name) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve(name).toFile(), "rw")) {
            f.setLength(USED);
            MappedByteBuffer map = f.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, USED);
            map.position(USED);
            return map;
        }
    }

    private double event(String event) {
        return registry.find(MitigationMetrics.EVENTS).tag("mitigation", "index-warm").tag("event", event).counters()
            .stream().mapToDouble(c -> c.count()).sum();
    }

    @Test
    void bringsAColdIndexInBeforeTheLookup() throws Exception {
        MappedByteBuffer map = coldIndex("00000000000000000000.index");
        assertThat(map.isLoaded()).as("cold before").isFalse();
        new IndexWarmer(advice, 1 << 20, 1_000_000_000L, metrics).beforeLookup(new TestIndex(map));
        assertThat(map.isLoaded()).as("resident after").isTrue();
        assertThat(event("warmed")).isEqualTo(1);
        assertThat(registry.get(IndexWarmMetrics.BYTES).counter().count()).isEqualTo(USED);
    }

    @Test
    void leavesAnIndexOverTheBoundToKafka() throws Exception {
        MappedByteBuffer map = coldIndex("00000000000000000000.timeindex");
        new IndexWarmer(advice, 4096, 1_000_000_000L, metrics).beforeLookup(new TestIndex(map));
        assertThat(map.isLoaded()).isFalse();
        assertThat(event("skipped_large")).isEqualTo(1);
        assertThat(event("warmed")).isZero();
    }

    @Test
    void aThreadTrustsItsRecentCheckAnotherThreadChecksForItself() throws Exception {
        IndexWarmer warmer = new IndexWarmer(advice, 1 << 20, 1_000_000_000L, metrics);
        TestIndex index = new TestIndex(coldIndex("00000000000000000000.index"));
        warmer.beforeLookup(index);
        // the same index, its pages gone (here: another cold mapping): this thread trusts its check of a moment ago
        MappedByteBuffer again = coldIndex("00000000000000001000.index");
        index.mmap = again;
        warmer.beforeLookup(index);
        assertThat(again.isLoaded()).isFalse();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                warmer.beforeLookup(index);
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        other.start();
        other.join();
        assertThat(failed.get()).isNull();
        assertThat(again.isLoaded()).as("another thread checks for itself").isTrue();
        assertThat(event("warmed")).isEqualTo(2);
    }

    @Test
    void anIndexUnmappedMeanwhileIsCountedNotTouched() throws Exception {
        MappedByteBuffer map = coldIndex("00000000000000000000.index");
        String[] why = new String[1];
        Unmapper.find(why).unmap(map); // what a resize or a close does to the mapping a lookup read a moment before
        new IndexWarmer(advice, 1 << 20, 1_000_000_000L, metrics).beforeLookup(new TestIndex(map));
        assertThat(event("unmapped")).isEqualTo(1);
    }
}
