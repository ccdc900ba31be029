package io.stallscope.analyzer.read;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.view.ReportView;
import io.stallscope.analyzer.analysis.view.ReportViews;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.model.LockEvent;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.model.State;
import io.stallscope.analyzer.render.HtmlReport;
import io.stallscope.analyzer.render.JsonReport;
import io.stallscope.analyzer.render.TextReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Layouts written by hand: jfrsync tick bases, extra fields, agent spans, multi-chunk and gzip, bad schemas. */
class LayoutTest {
    static final long T0 = 1_700_000_000_000_000_000L;

    @TempDir
    Path dir;

    private Path write(String name, byte[]... chunks) throws IOException {
        Path p = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(p)) {
            for (byte[] c : chunks) out.write(c);
        }
        return p;
    }

    private static Recording read(Path p) throws IOException {
        Recording rec = new Recording();
        JfrFileReader.read(p, rec, null);
        return rec;
    }

    /** A JDK chunk counting nanosecond ticks from JVM start, a profiler chunk counting other ticks from boot. */
    static byte[][] jfrsyncPair() {
        TinyJfr jdk = new TinyJfr(T0, 5_000_000L, 1_000_000_000L);
        jdk.thread(7, "data-plane-kafka-request-handler-1");
        int s = jdk.stack("append", "handle");
        jdk.sample(100_000_000L, 7, s, false);
        TinyJfr ap = new TinyJfr(T0, 327_000_000_000L * 3, 3_000_000_000L);
        ap.thread(7, "data-plane-kafka-request-handler-1");
        int s2 = ap.stack("append", "handle");
        ap.sample(200_000_000L, 7, s2, true);
        return new byte[][] {jdk.chunk(), ap.chunk()};
    }

    @Test
    void chunksWithDifferentTickBasesLineUpInTime() throws IOException {
        Recording rec = read(write("sync.jfr", jfrsyncPair()));
        assertThat(rec.files.get(0).chunks).isEqualTo(2);
        assertThat(rec.threads).hasSize(1);
        rec.samples.sort();
        Samples.Lane lane = rec.samples.lane(0);
        assertThat(lane.size()).isEqualTo(2);
        assertThat(lane.time(0)).isEqualTo(T0 + 100_000_000L);
        assertThat(lane.time(1)).isEqualTo(T0 + 200_000_000L);
        assertThat(lane.state(1)).isEqualTo(State.SLEEPING);
        assertThat(rec.frames.name(rec.stacks.frames(lane.stack(0))[0])).isEqualTo("demo.Broker.append");
        // The JDK's own parser reads the hand-written chunks (they are valid JFR) and agrees on the first chunk;
        // it places the second chunk's event by the first chunk's tick base (~981 s off), the jfrsync trap.
        try (jdk.jfr.consumer.RecordingFile rf = new jdk.jfr.consumer.RecordingFile(dir.resolve("sync.jfr"))) {
            java.util.List<Long> times = new java.util.ArrayList<>();
            while (rf.hasMoreEvents()) {
                java.time.Instant t = rf.readEvent().getStartTime();
                times.add(t.getEpochSecond() * 1_000_000_000L + t.getNano());
            }
            assertThat(times).hasSize(2).first().isEqualTo(T0 + 100_000_000L);
        }
    }

    @Test
    void gzippedMultiChunkFileReadsTheSame() throws IOException {
        byte[][] chunks = jfrsyncPair();
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            for (byte[] c : chunks) out.write(c);
        }
        Recording plain = read(write("plain.jfr", chunks));
        Recording zipped = read(write("zipped.jfr.gz", gz.toByteArray()));
        assertThat(zipped.files.get(0).eventCounts).isEqualTo(plain.files.get(0).eventCounts);
        assertThat(zipped.samples.size()).isEqualTo(2);
    }

    @Test
    void aLockEventWhoseFieldsRunPastItsSizeIsRejectedInHeapAndMappedChunks() throws IOException {
        TinyJfr t = new TinyJfr(T0, 0, 1_000_000_000L);
        t.thread(7, "data-plane-kafka-request-handler-1");
        int s = t.stack("append", "handle");
        t.monitorEnterOverrunning(1_000_000L, 7, s, 3);
        // Events after it: the unchecked reads of a heap chunk have room to run on past the cut event.
        for (int i = 0; i < 10; i++) t.monitorEnter(2_000_000L + i, 1_000L, 7, s, 0);
        Path p = write("overrun.jfr", t.chunk());
        assertThatThrownBy(() -> read(p)).isInstanceOf(JfrFormatException.class)
                .hasMessageContaining("unreadable jdk.JavaMonitorEnter event").hasMessageContaining("unexpected end of data");
        long old = JfrFileReader.heapChunk;
        JfrFileReader.heapChunk = 0;
        try {
            assertThatThrownBy(() -> read(p)).isInstanceOf(JfrFormatException.class)
                    .hasMessageContaining("unreadable jdk.JavaMonitorEnter event").hasMessageContaining("unexpected end of data");
        } finally {
            JfrFileReader.heapChunk = old;
        }
    }

    @Test
    void mappedAndHeapChunksReadTheSame() throws IOException {
        Path p = write("both.jfr", stalledAppend(), jfrsyncPair()[0], jfrsyncPair()[1]);
        Recording heap = read(p);
        long old = JfrFileReader.heapChunk;
        JfrFileReader.heapChunk = 0;
        Recording mapped;
        try {
            mapped = read(p);
        } finally {
            JfrFileReader.heapChunk = old;
        }
        assertThat(mapped.files.get(0).chunks).isEqualTo(3);
        assertThat(mapped.files.get(0).eventCounts).isEqualTo(heap.files.get(0).eventCounts);
        assertThat(mapped.spans).isEqualTo(heap.spans);
        assertThat(mapped.locks).isEqualTo(heap.locks);
        assertThat(mapped.threads).isEqualTo(heap.threads);
        assertThat(mapped.samples.size()).isEqualTo(heap.samples.size()).isGreaterThan(40);
    }

    /**
     * jdk.FileWrite as the JDK lays it out goes through the reader's I/O path, which keeps the last inline path's
     * String for the next event whose bytes are the same: every encoding of the path, a repeat, the same bytes in
     * another encoding (which may be another string), a shorter one sharing its start, and paths longer than the bytes
     * it keeps read as written.
     */
    @Test
    void fileWritesReadEveryPathEncodingAndRepeats() throws IOException {
        TinyJfr t = new TinyJfr(T0, 0, 1_000_000_000L);
        t.thread(1, "data-plane-kafka-request-handler-0");
        int s = t.stack("java.io.FileOutputStream.write");
        String longPath = "/kafka/" + "x".repeat(300) + ".log";
        Object[][] writes = {
            {"/data/a.log", TinyJfr.PathAs.UTF8}, {"/data/a.log", TinyJfr.PathAs.UTF8}, {"/data/a.log", TinyJfr.PathAs.LATIN1},
            {"/data/é.log", TinyJfr.PathAs.UTF8}, {"/data/é.log", TinyJfr.PathAs.LATIN1},
            // The UTF-8 bytes of "é" are the Latin-1 bytes of "Ã©": the same bytes, another string.
            {"/data/é.log", TinyJfr.PathAs.UTF8}, {"/data/Ã©.log", TinyJfr.PathAs.LATIN1}, {"/data/b.log", TinyJfr.PathAs.CHARS},
            {null, TinyJfr.PathAs.NULL}, {"", TinyJfr.PathAs.EMPTY}, {"/data/a.lo", TinyJfr.PathAs.UTF8},
            {"/data/a.log", TinyJfr.PathAs.UTF8}, {longPath, TinyJfr.PathAs.UTF8}, {longPath, TinyJfr.PathAs.UTF8},
            {"/data/a.log", TinyJfr.PathAs.UTF8},
            // References into the string pool, alternating as a segment's log and index do, and among inline ones.
            {"/data/p-0.log", TinyJfr.PathAs.POOL}, {"/data/p-0.index", TinyJfr.PathAs.POOL}, {"/data/p-0.log", TinyJfr.PathAs.POOL},
            {"/data/p-0.log", TinyJfr.PathAs.UTF8}, {"/data/p-0.index", TinyJfr.PathAs.POOL}, {"/data/a.log", TinyJfr.PathAs.POOL},
        };
        for (int i = 0; i < writes.length; i++) {
            t.fileWrite(1_000_000L * (i + 1), 1_000L * (i + 1), 1, s, (String) writes[i][0], (TinyJfr.PathAs) writes[i][1], 100 + i);
        }
        Recording rec = read(write("writes.jfr", t.chunk()));
        assertThat(rec.io.size()).isEqualTo(writes.length);
        for (int i = 0; i < writes.length; i++) {
            assertThat(rec.io.target(i)).as("path of write %d", i).isEqualTo(writes[i][0]);
            assertThat(rec.io.type(i)).isEqualTo("FileWrite");
            assertThat(rec.io.bytes(i)).isEqualTo(100 + i);
            assertThat(rec.io.end(i) - rec.io.start(i)).isEqualTo(1_000L * (i + 1));
            assertThat(rec.threadName(rec.io.thread(i))).isEqualTo("data-plane-kafka-request-handler-0");
        }
        assertThat(rec.io.start(0)).isEqualTo(T0 + 1_000_000L);
        assertThat(rec.files.get(0).eventCounts).containsEntry("jdk.FileWrite", (long) writes.length);
    }

    /**
     * Chunks read on reused I/O columns (a reader takes those of a chunk already merged): each chunk's paths, pooled
     * and inline, in its own order, come out as written, in every chunk, none of an earlier chunk's.
     */
    @Test
    void fileWritesOfManyChunksKeepTheirOwnPaths() throws IOException {
        int chunks = 12;
        byte[][] bytes = new byte[chunks][];
        List<String> expected = new ArrayList<>();
        for (int k = 0; k < chunks; k++) {
            TinyJfr t = new TinyJfr(T0 + k * 1_000_000_000L, k * 1_000_000_000L, 1_000_000_000L);
            t.thread(1, "data-plane-kafka-request-handler-0");
            int s = t.stack("java.io.FileOutputStream.write");
            String log = "/data/orders-" + k + "/00000000000000000000.log";
            String index = "/data/orders-" + (chunks - k) + "/00000000000000000000.index";
            String[] paths = k % 2 == 0 ? new String[] {log, index, log, index} : new String[] {index, index, log, "/data/x.log"};
            for (int i = 0; i < paths.length; i++) {
                t.fileWrite(1_000_000L * (i + 1), 1_000L, 1, s, paths[i], i % 2 == 0 ? TinyJfr.PathAs.POOL : TinyJfr.PathAs.UTF8, i);
                expected.add(paths[i]);
            }
            bytes[k] = t.chunk();
        }
        Recording rec = read(write("chunks.jfr", bytes));
        List<String> targets = new ArrayList<>();
        for (int i = 0; i < rec.io.size(); i++) targets.add(rec.io.target(i));
        assertThat(targets).containsExactlyElementsOf(expected);
    }

    @Test
    void extraFieldsInKnownEventsAreSkippedBySchema() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.extraField = true;
        j.thread(1, "t1");
        int s = j.stack("run");
        for (int i = 0; i < 50; i++) j.sample(i * 10_000_000L, 1, s, i % 2 == 0);
        Recording rec = read(write("extra.jfr", j.chunk()));
        assertThat(rec.samples.size()).isEqualTo(50);
        assertThat(rec.files.get(0).eventCounts).containsEntry("jdk.ExecutionSample", 50L);
    }

    @Test
    void aMonitorEventWithAFieldBeyondVarintsReadsAsTheUsualOne() throws IOException {
        List<LockEvent> read = new ArrayList<>();
        for (boolean note : new boolean[] {false, true}) {
            TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
            j.monitorNote = note;
            j.thread(1, "data-plane-kafka-request-handler-1");
            j.thread(2, "data-plane-kafka-request-handler-2");
            j.monitorEnter(5_000_000L, 40_000_000L, 2, j.stack("append", "handle"), 1, 0xbeef0);
            Recording rec = read(write("note-" + note + ".jfr", j.chunk()));
            assertThat(rec.locks).hasSize(1);
            LockEvent e = rec.locks.get(0);
            assertThat(rec.threadName(e.thread())).isEqualTo("data-plane-kafka-request-handler-2");
            assertThat(rec.threadName(e.previousOwner())).isEqualTo("data-plane-kafka-request-handler-1");
            read.add(e);
        }
        // The generic decode (a string field) and the all-varint path give the same event.
        assertThat(read.get(1)).isEqualTo(read.get(0));
        assertThat(read.get(0).end() - read.get(0).start()).isEqualTo(40_000_000L);
        assertThat(read.get(0).address()).isEqualTo(0xbeef0L);
    }

    @Test
    void aFieldOfAnUndefinedTypeIsACleanError() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.unknownFieldType = true;
        j.thread(1, "t1");
        Path p = write("unknown.jfr", j.chunk());
        assertThatThrownBy(() -> read(p)).isInstanceOf(JfrFormatException.class).hasMessageContaining("unknown type id 999");
    }

    @Test
    void agentEventsBecomeSpansEndingAtTheirTimestamp() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.thread(3, "data-plane-kafka-request-handler-3");
        j.append(500_000_000L, 3, 120_000_000L, "orders", 4);
        Recording rec = read(write("agent.jfr", j.chunk()));
        assertThat(rec.spans).hasSize(1);
        Span s = rec.spans.get(0);
        assertThat(s.start()).isEqualTo(T0 + 380_000_000L);
        assertThat(s.end()).isEqualTo(T0 + 500_000_000L);
        assertThat(s.topic()).isEqualTo("orders");
        assertThat(s.partition()).isEqualTo(4);
        assertThat(s.op()).isEqualTo("records_append");
        assertThat(s.bytes()).isEqualTo(1024);
        assertThat(s.path()).isEqualTo("/kafka/orders-4");
        assertThat(s.failed()).isFalse();
        assertThat(rec.threadName(s.thread())).isEqualTo("data-plane-kafka-request-handler-3");
    }

    @Test
    void previousOwnerNamesTheHolderExactly() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.thread(1, "data-plane-kafka-request-handler-1");
        j.thread(2, "data-plane-kafka-request-handler-2");
        int waiter = j.stack("append", "handle");
        int holder = j.stack("force", "append", "handle");
        j.sample(10_000_000L, 1, holder, false);
        j.sample(20_000_000L, 1, holder, false);
        j.monitorEnter(0, 40_000_000L, 2, waiter, 1);
        Recording rec = read(write("owner.jfr", j.chunk()));
        Analysis a = Analyzer.analyze(rec, Options.defaults());
        assertThat(a.contentions()).hasSize(1);
        Contention c = a.contentions().get(0);
        Holder h = c.mainHolder();
        assertThat(rec.threadName(h.thread())).isEqualTo("data-plane-kafka-request-handler-1");
        assertThat(h.how()).isEqualTo(Holder.RECORDED);
        assertThat(a.frameList(h.stack(), 5)).first().asString().startsWith("demo.Broker.force");
        assertThat(c.totalWaitNanos).isEqualTo(40_000_000L);
        SourceFile f = rec.files.get(0);
        assertThat(f.eventCounts).containsEntry("jdk.JavaMonitorEnter", 1L).containsEntry("jdk.ExecutionSample", 2L);
    }

    @Test
    void aRepeatedChunkIsSkippedWithAWarningAndItsWaitsCountOnce() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.thread(1, "data-plane-kafka-request-handler-1");
        j.thread(2, "data-plane-kafka-request-handler-2");
        int waiter = j.stack("append", "handle");
        j.monitorEnter(0, 40_000_000L, 2, waiter, 1);
        byte[] chunk = j.chunk();
        // The same events in a chunk of its own (another start time) are not a repeat: both count.
        TinyJfr later = new TinyJfr(T0 + 1_000_000_000L, 0, 1_000_000_000L);
        later.thread(1, "data-plane-kafka-request-handler-1");
        later.thread(2, "data-plane-kafka-request-handler-2");
        later.monitorEnter(0, 40_000_000L, 2, later.stack("append", "handle"), 1);

        Recording rec = read(write("twice.jfr", chunk, chunk, later.chunk(), chunk));
        SourceFile f = rec.files.get(0);
        assertThat(f.chunks).isEqualTo(2);
        assertThat(f.warnings).singleElement().asString()
                .startsWith("2 chunks repeat an earlier chunk byte for byte (first at byte " + chunk.length + ")");
        assertThat(f.eventCounts).containsEntry("jdk.JavaMonitorEnter", 2L);
        Analysis a = Analyzer.analyze(rec, Options.defaults());
        assertThat(a.contentions()).singleElement().satisfies(c -> {
            assertThat(c.totalWaitNanos).isEqualTo(80_000_000L);
            assertThat(c.waitCount).isEqualTo(2);
        });

        Recording once = read(write("once.jfr", chunk));
        assertThat(once.files.get(0).warnings).isEmpty();
        assertThat(Analyzer.analyze(once, Options.defaults()).contentions().get(0).totalWaitNanos).isEqualTo(40_000_000L);
    }

    @Test
    void reportsSayWhenTheHtmlTimelineShowsASampleOfTheWaits() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.thread(1, "data-plane-kafka-request-handler-1");
        j.thread(2, "data-plane-kafka-request-handler-2");
        int waiter = j.stack("append", "handle");
        for (int i = 0; i < 70_000; i++) j.monitorEnter(i * 1_000_000L, 500_000L + i, 2, waiter, 1);
        Recording rec = read(write("many.jfr", j.chunk()));
        ReportView view = ReportViews.of(Analyzer.analyze(rec, Options.defaults()));
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        TextReport.write(view, new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8));
        assertThat(text.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("The HTML timeline shows a sample of the events: the longest 60,000 of 70,000 waits;");
        var json = JsonReport.build(view).get("htmlTimeline");
        assertThat(json.get("sampled").asBoolean()).isTrue();
        assertThat(json.get("waits").asLong()).isEqualTo(70_000);
        assertThat(json.get("waitsShown").asLong()).isEqualTo(60_000);
        assertThat(HtmlReport.render(view)).contains("id=\"timeline-sample\">The HTML timeline shows a sample");

        TinyJfr small = new TinyJfr(T0, 0, 1_000_000_000L);
        small.thread(1, "data-plane-kafka-request-handler-1");
        small.thread(2, "data-plane-kafka-request-handler-2");
        small.monitorEnter(0, 40_000_000L, 2, small.stack("append", "handle"), 1);
        ReportView all = ReportViews.of(Analyzer.analyze(read(write("few.jfr", small.chunk())), Options.defaults()));
        assertThat(JsonReport.build(all).at("/htmlTimeline/sampled").asBoolean()).isFalse();
        assertThat(HtmlReport.render(all)).doesNotContain("timeline-sample");
    }

    @Test
    void segmentRollFsyncAndIndexUnmapStormAreNamed() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.thread(1, "data-plane-kafka-request-handler-1");
        j.thread(2, "kafka-scheduler-3");
        j.thread(3, "data-plane-kafka-request-handler-2");
        int fsync = j.stack("force0", "flush", "roll", "append", "handle");
        int unmap = j.stack("forceUnmap", "AbstractIndex.resize", "roll");
        int busy = j.stack("compute", "handle");
        for (int i = 0; i < 10; i++) {
            j.sample(i * 10_000_000L, 1, fsync, true);
            j.sample(i * 10_000_000L, 2, unmap, true);
            j.sample(i * 10_000_000L, 3, busy, false);
        }
        Recording rec = read(write("storm.jfr", j.chunk()));
        Analysis a = Analyzer.analyze(rec, Options.defaults());
        assertThat(a.findings()).anySatisfy(f -> {
            assertThat(f.kind()).isEqualTo("fsync-on-produce-path");
            assertThat(f.summary()).contains("segment roll");
            assertThat(f.threads()).containsExactly("data-plane-kafka-request-handler-1");
        });
        // The scheduler's index resize hurt no client: folded into the background line, with what it was.
        assertThat(a.findings()).noneMatch(f -> f.kind().equals("index-resize-unmap-storm"));
        assertThat(a.findings().get(a.findings().size() - 1)).satisfies(f -> {
            assertThat(f.kind()).isEqualTo("background-io");
            assertThat(f.threads()).containsExactly("kafka-scheduler-3");
            assertThat(f.evidence()).singleElement().asString().startsWith("[index-resize-unmap-storm] index resize / unmap storm");
        });
        assertThat(a.findings()).noneMatch(f -> f.threads().contains("data-plane-kafka-request-handler-2"));
    }

    /** "roll" inside a name ("Controller", "scroll") is not a segment roll; Kafka's roll methods and their lambdas are. */
    @Test
    void onlyKafkasRollMethodsMakeAnFsyncASegmentRoll() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.thread(1, "controller-event-thread");
        j.thread(2, "kafka-scheduler-0");
        int controller = j.stack("force0", "flush", "KafkaController.processControllerChange", "scrollTo");
        int lambda = j.stack("force0", "flush", "$anonfun$roll$1", "run");
        for (int i = 0; i < 10; i++) {
            j.sample(i * 10_000_000L, 1, controller, true);
            j.sample(i * 10_000_000L, 2, lambda, true);
        }
        Analysis a = Analyzer.analyze(read(write("controller.jfr", j.chunk())), Options.defaults());
        // A scheduler's fsync under a roll is a segment roll's, but not the produce path's: folded as background work.
        assertThat(a.findings()).noneMatch(f -> f.kind().equals("fsync-on-produce-path"));
        assertThat(a.findings()).singleElement().satisfies(f -> {
            assertThat(f.kind()).isEqualTo("background-io");
            assertThat(f.threads()).containsExactly("kafka-scheduler-0");
            assertThat(f.evidence()).singleElement().asString()
                    .startsWith("[roll-fsync-off-request-path] fsync under a segment roll off the request path: 1 thread");
        });
    }

    /**
     * Handler 3's records_append on orders-7 runs from 20 ms to 500 ms while it holds the partition monitor
     * (its samples sit in force0, i.e. fsync); handlers 1 and 2 wait for it (recorded previousOwner = 3), handler
     * 4 waits after the op ended, and handler 5 waits behind handler 1 during the op. Only the first two waits
     * belong to the op; a scheduler's 150 ms segment_flush nobody waited on is still named; a 10 ms op is not.
     */
    static byte[] stalledAppend() {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        for (int i = 1; i <= 5; i++) j.thread(i, "data-plane-kafka-request-handler-" + i);
        j.thread(6, "kafka-scheduler-0");
        int waiter = j.stack("append", "handle");
        int fsync = j.stack("force0", "flush", "append", "handle");
        for (int t = 30; t < 500; t += 10) j.sample(t * 1_000_000L, 3, fsync, false);
        j.monitorEnter(30_000_000L, 400_000_000L, 1, waiter, 3);
        j.monitorEnter(50_000_000L, 300_000_000L, 2, waiter, 3);
        j.monitorEnter(600_000_000L, 100_000_000L, 4, waiter, 3);
        j.monitorEnter(100_000_000L, 50_000_000L, 5, waiter, 1);
        j.append(500_000_000L, 3, 480_000_000L, "orders", 7);
        j.op(TinyJfr.FLUSH, 900_000_000L, 6, 150_000_000L, "segment_flush", "scheduler", "orders", 2, -1, "/kafka/orders-2/00000000000000000000.log", false);
        j.op(TinyJfr.FLUSH, 950_000_000L, 6, 10_000_000L, "segment_flush", "scheduler", "orders", 3, -1, "/kafka/orders-3/00000000000000000000.log", false);
        return j.chunk();
    }

    @Test
    void anAgentOpThatHeldTheLockOthersWaitedForIsTheFirstFinding() throws IOException {
        Recording rec = read(write("stalled.jfr", stalledAppend()));
        Analysis a = Analyzer.analyze(rec, Options.defaults());
        io.stallscope.analyzer.analysis.Finding first = a.findings().get(0);
        assertThat(first.kind()).isEqualTo("stalled-op-under-lock");
        // Told from the victims to the root, each link with its source.
        assertThat(first.summary()).isEqualTo("2 handlers waited 700.0 ms for its lock demo.Broker@0xabc0 (monitor, taken in demo.Broker.append),"
                + " held by data-plane-kafka-request-handler-3 in records_append 480.0 ms for orders-7, then fsync(2)"
                + " (longest 400.0 ms; per waiter 400.0, 300.0 ms; 2 recorded (previousOwner))");
        assertThat(first.evidence().subList(0, 4)).satisfiesExactly(
                e -> assertThat(e).startsWith("chain 1, waited: 2 handlers, 700.0 ms in total, on its lock").endsWith("[2 recorded (previousOwner)]"),
                e -> assertThat(e).isEqualTo("chain 2, held by: data-plane-kafka-request-handler-3 [recorded: jdk.JavaMonitorEnter previousOwner]"),
                e -> assertThat(e).isEqualTo("chain 3, doing: records_append 480.0 ms for orders-7 [recorded: agent span]"),
                e -> assertThat(e).startsWith("chain 4, then: fsync(2) [inferred: ").endsWith("of its samples during the op]"));
        // The clients' cost: handler 3 inside its op (20-500 ms), handler 1 (30-430 ms) and 2 (50-350 ms) waiting.
        assertThat(first.harm().stalledNanos()).isEqualTo(1_180_000_000L);
        assertThat(first.harm().peak()).isEqualTo(3);
        assertThat(first.harm().threads()).isEqualTo(3);
        assertThat(first.weightNanos()).isEqualTo(700_000_000L);
        assertThat(first.threads()).containsExactly("data-plane-kafka-request-handler-3", "data-plane-kafka-request-handler-1",
                "data-plane-kafka-request-handler-2");
        assertThat(first.evidence()).anySatisfy(e -> assertThat(e)
                .contains("records_append on data-plane-kafka-request-handler-3 at +0.020 s for 480.0 ms, orders-7, 1024 bytes"));
        assertThat(first.evidence()).anySatisfy(e -> assertThat(e).startsWith("holder data-plane-kafka-request-handler-3 (recorded")
                .contains("in fsync(2)").contains("demo.Broker.force0"));
        assertThat(first.evidence()).anySatisfy(e -> assertThat(e).isEqualTo("waiter data-plane-kafka-request-handler-1 waited 400.0 ms over 1 wait during the op"
                + " (recorded: its jdk.JavaMonitorEnter previousOwner is the holder)"));
        assertThat(a.findings()).filteredOn(f -> f.kind().equals("stalled-op-under-lock")).hasSize(1);
        // The scheduler's 150 ms flush nobody waited on: only in the folded background line, last.
        assertThat(a.findings()).noneMatch(f -> f.kind().equals("slow-op"));
        assertThat(a.findings().get(a.findings().size() - 1)).satisfies(f -> {
            assertThat(f.kind()).isEqualTo("background-io");
            assertThat(f.summary()).isEqualTo("background I/O: 1 op, longest 150.0 ms (segment_flush on kafka-scheduler-0), nobody waited");
            assertThat(f.evidence()).singleElement().asString()
                    .startsWith("[slow-op] segment_flush 150.0 ms on kafka-scheduler-0 for orders-2; no thread waited on it")
                    .contains("path /kafka/orders-2/00000000000000000000.log");
        });

        com.fasterxml.jackson.databind.JsonNode spans = io.stallscope.analyzer.render.JsonReport.build(a).get("spans");
        assertThat(spans).hasSize(3);
        com.fasterxml.jackson.databind.JsonNode s = spans.get(0);
        assertThat(s.get("thread").asText()).isEqualTo("data-plane-kafka-request-handler-3");
        assertThat(s.get("op").asText()).isEqualTo("records_append");
        assertThat(s.get("start").asText()).isEqualTo(java.time.Instant.ofEpochSecond(0, T0 + 20_000_000L).toString());
        assertThat(s.get("durationMs").asDouble()).isEqualTo(480.0);
        assertThat(s.get("topic").asText()).isEqualTo("orders");
        assertThat(s.get("partition").asInt()).isEqualTo(7);
        assertThat(s.get("bytes").asLong()).isEqualTo(1024);

        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        io.stallscope.analyzer.render.TextReport.write(a, new java.io.PrintStream(text, true, java.nio.charset.StandardCharsets.UTF_8));
        assertThat(text.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains(" 1. [stalled-op-under-lock] 2 handlers waited 700.0 ms for its lock")
                .contains("    clients: 3 request-path threads stalled 1180.0 ms in all, up to 3 at once (from lock events,\n      agent spans)")
                .contains("Agent ops (3 spans, longest first):")
                .containsPattern("records_append +480\\.0 ms +at \\+0\\.020 s +data-plane-kafka-request-handler-3 +orders-7 +1024 bytes");
    }
    /**
     * The stalled append above, plus what used to lead the report: a scheduler fsyncing under a segment roll and its
     * 2.6 s segment_flush that no one waited on, and a handler's own fsync under a roll. The first finding is the
     * stall the handlers felt; "the produce path" names only the handler; the background work is one folded line, last.
     */
    @Test
    void theFirstFindingIsTheStallThatHurtAndBackgroundWorkIsFolded() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        for (int i = 1; i <= 3; i++) j.thread(i, "data-plane-kafka-request-handler-" + i);
        j.thread(6, "kafka-scheduler-0");
        int waiter = j.stack("append", "handle");
        int fsync = j.stack("force0", "flush", "append", "handle");
        int rollFsync = j.stack("force0", "flush", "roll", "append", "handle");
        int flush = j.stack("force0", "flush", "$anonfun$roll$1", "run");
        for (int t = 30; t < 500; t += 10) j.sample(t * 1_000_000L, 3, fsync, false);
        for (int t = 600; t < 700; t += 10) j.sample(t * 1_000_000L, 1, rollFsync, false);
        for (int t = 100; t < 2700; t += 10) j.sample(t * 1_000_000L, 6, flush, false);
        j.monitorEnter(30_000_000L, 400_000_000L, 1, waiter, 3);
        j.monitorEnter(50_000_000L, 300_000_000L, 2, waiter, 3);
        j.append(500_000_000L, 3, 480_000_000L, "orders", 7);
        j.op(TinyJfr.FLUSH, 2_700_000_000L, 6, 2_600_000_000L, "segment_flush", "scheduler", "orders", 2, -1,
                "/kafka/orders-2/00000000000000000000.log", false);
        Analysis a = Analyzer.analyze(read(write("hurt.jfr", j.chunk())), Options.defaults());

        assertThat(a.findings().get(0).kind()).isEqualTo("stalled-op-under-lock");
        assertThat(a.findings().get(0).summary()).contains("held by data-plane-kafka-request-handler-3 in records_append");
        assertThat(a.findings()).filteredOn(f -> f.summary().contains("produce path")).isNotEmpty()
                .allSatisfy(f -> assertThat(f.threads()).allMatch(t -> KafkaThreads.role(t).equals(KafkaThreads.REQUEST_HANDLER)));
        assertThat(a.findings()).filteredOn(f -> f.kind().equals("fsync-on-produce-path")).singleElement()
                .satisfies(f -> assertThat(f.threads()).containsExactlyInAnyOrder("data-plane-kafka-request-handler-1",
                        "data-plane-kafka-request-handler-3"));
        // The scheduler, whose op and fsyncs are longer than anything above, is only in the folded line, last.
        List<io.stallscope.analyzer.analysis.Finding> before = a.findings().subList(0, a.findings().size() - 1);
        assertThat(before).noneMatch(f -> f.threads().contains("kafka-scheduler-0") || f.kind().equals("background-io"));
        io.stallscope.analyzer.analysis.Finding last = a.findings().get(a.findings().size() - 1);
        assertThat(last.kind()).isEqualTo("background-io");
        assertThat(last.summary()).isEqualTo("background I/O: 1 op, longest 2600.0 ms (segment_flush on kafka-scheduler-0), nobody waited");
        assertThat(last.evidence()).anySatisfy(e -> assertThat(e).startsWith("[roll-fsync-off-request-path] "))
                .anySatisfy(e -> assertThat(e).startsWith("[slow-op] segment_flush 2600.0 ms on kafka-scheduler-0"));
        assertThat(before).allMatch(f -> f.harm().hurt());
    }

    /**
     * An agent with the "blocked behind" fields (issue 41) says what the holder's op ran behind: the chain's last link,
     * recorded. The same op without those fields (an older agent) ends the chain at the syscall: nothing is guessed.
     */
    @Test
    void theAgentsBehindFieldsAreTheChainsLastLinkRecorded() throws IOException {
        String net = "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0";
        for (boolean behind : new boolean[] {true, false}) {
            TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
            for (int i = 1; i <= 3; i++) j.thread(i, "data-plane-kafka-request-handler-" + i);
            j.thread(4, net);
            int waiter = j.stack("append", "handle");
            int fsync = j.stack("force0", "writeSnapshot", "roll", "append", "handle");
            for (int t = 30; t < 500; t += 10) j.sample(t * 1_000_000L, 3, fsync, false);
            j.monitorEnter(30_000_000L, 400_000_000L, 1, waiter, 3);
            j.monitorEnter(50_000_000L, 300_000_000L, 2, waiter, 3);
            if (behind) j.opBehind(500_000_000L, 3, 480_000_000L, "orders", 0, "transfer_to", net, 90, "file");
            else j.append(500_000_000L, 3, 480_000_000L, "orders", 0);
            Analysis a = Analyzer.analyze(read(write("behind-" + behind + ".jfr", j.chunk())), Options.defaults());
            io.stallscope.analyzer.analysis.Finding first = a.findings().get(0);
            assertThat(first.kind()).isEqualTo("stalled-op-under-lock");
            List<String> chain = first.evidence().stream().filter(e -> e.startsWith("chain ")).toList();
            if (behind) {
                assertThat(a.recording().spans).singleElement().satisfies(s -> assertThat(s.behind())
                        .isEqualTo(new Span.Behind("transfer_to", net, 90, "file")));
                assertThat(chain).last().isEqualTo("chain 5, slow because: its snapshot_write ran 90 ms behind " + net
                        + "'s transfer_to, sharing the file [recorded: the agent's behind fields]");
            } else {
                assertThat(a.recording().spans).singleElement().satisfies(s -> assertThat(s.behind()).isNull());
                assertThat(chain).hasSize(4).last().asString().startsWith("chain 4, then: fsync(2)");
            }
        }
    }

    /**
     * A convoy, as a broker records it: handler 3's records_append runs from 20 ms to 500 ms under the partition
     * monitor and handler 3 releases it at 510 ms. Handlers 1, 2, 4 and 5 queue on that monitor at 30-60 ms and get it
     * in turn: only handler 1's event names handler 3 as previousOwner, the others name the one before them. Handler
     * 6 waits on another monitor meanwhile, and handler 7's wait (named behind handler 1) ends while handler 3 still
     * held the monitor, so neither waited for handler 3. The first event on the monitor has no stack trace.
     */
    @Test
    void everyWaiterInTheConvoyBehindAStalledHolderIsCounted() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        for (int i = 1; i <= 7; i++) j.thread(i, "data-plane-kafka-request-handler-" + i);
        int waiter = j.stack("append", "handle");
        int write = j.stack("write0", "append", "handle");
        for (int t = 30; t < 500; t += 10) j.sample(t * 1_000_000L, 3, write, false);
        long ms = 1_000_000L;
        j.monitorEnter(50 * ms, 480 * ms, 4, 0, 2, 0xabc0);
        j.monitorEnter(30 * ms, 480 * ms, 1, waiter, 3, 0xabc0);
        j.monitorEnter(40 * ms, 480 * ms, 2, waiter, 1, 0xabc0);
        j.monitorEnter(60 * ms, 480 * ms, 5, waiter, 4, 0xabc0);
        j.monitorEnter(40 * ms, 400 * ms, 6, waiter, 1, 0xdef0);
        j.monitorEnter(100 * ms, 50 * ms, 7, waiter, 1, 0xabc0);
        j.append(500 * ms, 3, 480 * ms, "orders", 7);
        Analysis a = Analyzer.analyze(read(write("convoy.jfr", j.chunk())), Options.defaults());

        io.stallscope.analyzer.analysis.Finding f = a.findings().get(0);
        assertThat(f.kind()).isEqualTo("stalled-op-under-lock");
        // Handler 1 for the op (470 ms); the others from when they queued until handler 3 let go at 510 ms.
        assertThat(f.summary()).startsWith("4 handlers waited 1850.0 ms for its lock")
                .contains("(monitor, taken in demo.Broker.append)")
                .contains("held by data-plane-kafka-request-handler-3 in records_append 480.0 ms for orders-7")
                .contains("(longest 470.0 ms; per waiter 470.0, 470.0, 460.0, 450.0 ms; "
                        + "1 recorded (previousOwner), 3 inferred from the recorded convoy)");
        assertThat(f.threads().get(0)).isEqualTo("data-plane-kafka-request-handler-3");
        assertThat(f.threads()).containsExactlyInAnyOrder("data-plane-kafka-request-handler-3", "data-plane-kafka-request-handler-1",
                "data-plane-kafka-request-handler-2", "data-plane-kafka-request-handler-4", "data-plane-kafka-request-handler-5");
        assertThat(f.evidence()).contains(
                "waiter data-plane-kafka-request-handler-1 waited 470.0 ms over 1 wait during the op (recorded: its jdk.JavaMonitorEnter previousOwner is the holder)",
                "waiter data-plane-kafka-request-handler-2 waited 470.0 ms over 1 wait during the op (inferred from the recorded convoy: it queued on the same monitor while the holder held it)",
                "waiter data-plane-kafka-request-handler-4 waited 460.0 ms over 1 wait during the op (inferred from the recorded convoy: it queued on the same monitor while the holder held it)",
                "waiter data-plane-kafka-request-handler-5 waited 450.0 ms over 1 wait during the op (inferred from the recorded convoy: it queued on the same monitor while the holder held it)");
        assertThat(f.weightNanos()).isEqualTo(1850 * ms);
        // The stackless first event takes its monitor's site from the others.
        assertThat(a.contentions()).allSatisfy(c -> assertThat(c.label).doesNotContain("?"));
    }

    /** The agent's capture thread and the JDK recorder's threads sync their own files: that is no Kafka finding. */
    @Test
    void theToolsOwnThreadsAreNeverTheSubjectOfAFinding() throws IOException {
        TinyJfr j = new TinyJfr(T0, 0, 1_000_000_000L);
        j.thread(1, "stallscope-capture");
        j.thread(2, "JFR Recorder Thread");
        j.thread(3, "data-plane-kafka-request-handler-1");
        int fsync = j.stack("force0", "flush", "roll", "write");
        for (int i = 0; i < 10; i++) {
            j.sample(i * 10_000_000L, 1, fsync, true);
            j.sample(i * 10_000_000L, 2, fsync, true);
        }
        j.sample(0, 3, j.stack("compute", "handle"), false);
        Analysis a = Analyzer.analyze(read(write("tools.jfr", j.chunk())), Options.defaults());
        assertThat(a.findings()).noneMatch(f -> f.threads().contains("stallscope-capture") || f.threads().contains("JFR Recorder Thread"));
        assertThat(a.findings()).noneMatch(f -> f.kind().equals("fsync-on-produce-path"));
    }
}
