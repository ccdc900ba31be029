package io.stallscope.analyzer.read;

import io.stallscope.analyzer.Fixtures;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import one.jfr.JfrReader;
import one.jfr.event.ExecutionSample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every shared public recording parses, with event counts that agree with two independent parsers. */
class FixtureParseTest {

    static List<Path> recordings() throws IOException {
        return Fixtures.recordings().stream().filter(p -> !p.getFileName().toString().equals("invalid.jfr")).toList();
    }

    @ParameterizedTest
    @MethodSource("recordings")
    void countsAgreeWithTheJdkParser(Path file) throws IOException {
        Recording rec = new Recording();
        SourceFile f = JfrFileReader.read(file, rec, null);
        Map<String, Long> jdk = jdkCounts(file);
        assertThat(jdk).isNotEmpty();
        assertThat(f.eventCounts).isEqualTo(jdk);
        assertThat(f.warnings).isEmpty();
        assertThat(rec.threads).isNotEmpty();
    }

    @ParameterizedTest
    @MethodSource("recordings")
    void samplesAgreeWithAsyncProfilersParser(Path file) throws IOException {
        Recording rec = new Recording();
        JfrFileReader.read(file, rec, null);
        long weight = 0;
        for (var t : rec.threads) { var l = rec.samples.lane(t.id()); for (int i = 0; i < l.size(); i++) weight += l.weight(i); }
        long events = 0;
        long samples = 0;
        // A mapped buffer: opened by path, JfrReader re-reads JDK files many times over.
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r");
             FileChannel ch = raf.getChannel()) {
            ByteBuffer buf = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            JfrReader jr = new JfrReader(buf);
            for (ExecutionSample e; (e = jr.readEvent(ExecutionSample.class)) != null; ) {
                events++;
                samples += e.samples;
            }
        }
        assertThat(rec.samples.size()).isEqualTo(events);
        assertThat(weight).isEqualTo(samples);
        assertThat(events).isPositive();
    }

    @Test
    void sampledStacksResolveToNamedFrames() throws IOException {
        Recording rec = new Recording();
        JfrFileReader.read(Fixtures.file("async-profiler-4.0-wall.jfr"), rec, null);
        assertThat(rec.stacks.size()).isGreaterThan(10);
        assertThat(rec.frames.size()).isGreaterThan(10);
        long javaFrames = java.util.stream.IntStream.range(0, rec.frames.size()).filter(rec.frames::isJava).count();
        assertThat(javaFrames).isPositive();
        assertThat(rec.threads).allSatisfy(t -> assertThat(t.name()).isNotBlank());
    }

    @Test
    void threadNamesCutShortByTheKernelAreToldApart() throws IOException {
        // Native threads carry the kernel's name, cut to 15 characters: ten GC workers all read "GC task thread#".
        Recording rec = new Recording();
        JfrFileReader.read(Fixtures.file("async-profiler-3.0-wall-20ms.jfr"), rec, null);
        assertThat(rec.threads.stream().map(t -> t.name())).doesNotHaveDuplicates();
        assertThat(rec.threads.stream().map(t -> t.name()).filter(n -> n.matches("GC task thread# (#|tid )\\d+")))
                .hasSize(10);
    }

    @Test
    void kafkaBrokerCpuRecordingInventsNoLockWaits() throws IOException {
        // Despite its name this cpu+alloc recording has no lock event. A CPU profiler samples running threads only:
        // its samples at lock sites (ReentrantReadWriteLock's tryAcquireShared, a monitor's enter) are fast paths,
        // not waits, so no contention may come of them.
        Recording rec = new Recording();
        JfrFileReader.read(Fixtures.file("async-profiler-2.9-kafka-broker-cpu-lock-alloc.jfr"), rec, null);
        assertThat(rec.locks).isEmpty();
        io.stallscope.analyzer.analysis.stacks.StackClassifier classifier =
                new io.stallscope.analyzer.analysis.stacks.StackClassifier(rec.frames, rec.stacks);
        long atLockSites = java.util.stream.IntStream.range(0, rec.stacks.size()).filter(s -> classifier.lockWait(s) != null).count();
        assertThat(atLockSites).as("stacks at a lock site, each once taken for a 10 ms wait").isGreaterThanOrEqualTo(6);
        io.stallscope.analyzer.analysis.Analysis a = io.stallscope.analyzer.analysis.Analyzer.analyze(rec,
                io.stallscope.analyzer.analysis.Options.defaults());
        assertThat(rec.files.get(0).sampleIntervalNanos).isEqualTo(10_000_000L);
        assertThat(a.contentions()).isEmpty();
        assertThat(a.findings()).noneMatch(f -> f.kind().equals("contended-locks"));
    }

    @Test
    void invalidFixtureFailsCleanly() {
        Path invalid = Fixtures.file("invalid.jfr"); // outside the lambda: a missing fixture skips, it does not throw
        assertThatThrownBy(() -> JfrFileReader.read(invalid, new Recording(), null))
                .isInstanceOf(JfrFormatException.class);
    }

    static Map<String, Long> jdkCounts(Path file) throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        try (RecordingFile rf = new RecordingFile(file)) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                counts.merge(e.getEventType().getName(), 1L, Long::sum);
            }
        }
        return counts;
    }
}
