package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.LockEvent;
import io.stallscope.analyzer.model.LogDir;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.render.JsonReport;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.LongConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A recording of I/O events only, built in memory chunk by chunk as the reader merges them: a handler storm's short
 * writes (and socket reads) and, late in it, one fsync, one long append and the reads of its file. Its I/O events
 * alone cut it into windows, the I/O held stays bounded by the window (plus what is kept), and the findings that read
 * fsyncs, long writes and reads are those of the recording analysed whole.
 */
class StreamingIoTest {
    private static final long T0 = 1_800_000_000_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final String SEGMENT = "/data/kafka/orders-3/00000000000000000000.log";
    private static final int CHUNKS = 12;
    private static final int WRITES_PER_CHUNK = 10_000;
    private static final int SOCKET_READS_PER_CHUNK = 50;
    /** The chunk with the fsync, the long append and the reads: after the timeline's first events. */
    private static final int SLOW_CHUNK = 9;
    private static final int SLOW_EVENTS = 4;
    private static final long WINDOW = 25_000;

    /** Builds the recording, telling {@code beforeChunk} what each chunk brings before adding it, as the reader does. */
    private static Recording storm(LongConsumer beforeChunk, Recording rec) {
        SourceFile f = new SourceFile(0, "broker.jfr");
        rec.files.add(f);
        rec.logDirs.add(new LogDir(0, "/data/kafka", "xfs", "/dev/loop3", "/data"));
        int[] handlers = new int[4];
        for (int h = 0; h < handlers.length; h++) handlers[h] = rec.thread(0, "data-plane-kafka-request-handler-" + h, 40 + h, 0);
        int network = rec.thread(0, "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0", 30, 0);
        for (int c = 0; c < CHUNKS; c++) {
            long chunkStart = T0 + c * 1000 * MS;
            boolean slow = c == SLOW_CHUNK;
            beforeChunk.accept(WRITES_PER_CHUNK + SOCKET_READS_PER_CHUNK + (slow ? SLOW_EVENTS : 0));
            for (int i = 0; i < WRITES_PER_CHUNK; i++) {
                long start = chunkStart + i * 90_000L;
                rec.io.add("FileWrite", start, start + 2_000, handlers[i % handlers.length], 0, SEGMENT, 16);
            }
            for (int i = 0; i < SOCKET_READS_PER_CHUNK; i++) {
                long start = chunkStart + i * 10 * MS;
                rec.io.add("SocketRead", start, start + 3 * MS, network, 0, "client:50000", 100);
            }
            if (slow) {
                rec.io.add("FileForce", chunkStart + 10 * MS, chunkStart + 40 * MS, handlers[1], 0, SEGMENT, 0);
                rec.io.add("FileWrite", chunkStart + 100 * MS, chunkStart + 160 * MS, handlers[2], 0, SEGMENT, 4096);
                rec.io.add("FileRead", chunkStart + 90 * MS, chunkStart + 400 * MS, network, 0, SEGMENT, 1 << 20);
                rec.io.add("FileRead", chunkStart + 500 * MS, chunkStart + 500 * MS + 500_000, network, 0, SEGMENT, 4096);
            }
            f.startNanos = Math.min(f.startNanos, chunkStart);
            f.endNanos = chunkStart + 1000 * MS;
            f.chunks++;
        }
        return rec;
    }

    private static final List<String> IO_FINDINGS = List.of(Finding.FSYNC_ON_PRODUCE, Finding.WRITE_BEHIND_SENDFILE, Finding.NETWORK_THREAD_IO);

    private static List<String> ioFindings(Analysis a) {
        return a.findings().stream().filter(f -> IO_FINDINGS.contains(f.kind()))
                .map(f -> f.kind() + ": " + f.summary() + " " + f.evidence()).sorted().toList();
    }

    @Test
    void ioEventsAloneCutWindowsAndOnlyWhatIsReadLaterStays() {
        long total = CHUNKS * (long) (WRITES_PER_CHUNK + SOCKET_READS_PER_CHUNK) + SLOW_EVENTS;
        Recording whole = storm(n -> { }, new Recording());
        Analysis all = Analyzer.analyze(whole, Options.defaults());
        assertThat(all.sampling().windowed()).isFalse();
        assertThat(whole.io.size()).isEqualTo(total);

        Recording rec = new Recording();
        StreamingAnalysis s = new StreamingAnalysis(rec, r -> Options.defaults(), WINDOW, 1_000);
        // The I/O held before each chunk is merged: what earlier windows kept, and the window being filled.
        long kept = StreamingAnalysis.TIMELINE_IO_EVENTS + SLOW_EVENTS;
        long[] most = {0};
        storm(n -> {
            s.chunkComing(n);
            most[0] = Math.max(most[0], rec.io.size());
        }, rec);
        Analysis windowed = s.finish(Options.defaults());

        // Two chunks of 10,050 events make a window of 25,000 at most: six windows, where samples and lock events made one.
        assertThat(windowed.sampling().windowed()).isTrue();
        assertThat(windowed.sampling().windows()).isEqualTo(CHUNKS / 2);
        assertThat(most[0]).isLessThanOrEqualTo(kept + WINDOW).isLessThan(total);
        // Kept: the timeline's first events, then the fsync, the long append and the two reads; no short write, no socket read.
        assertThat(rec.io.size()).isEqualTo(kept);
        assertThat(rec.io.seen()).isEqualTo(total);
        assertThat(windowed.sampling().ioEvents()).isEqualTo(total);
        for (int i = StreamingAnalysis.TIMELINE_IO_EVENTS; i < rec.io.size(); i++) {
            assertThat(rec.io.type(i)).isIn("FileForce", "FileRead", "FileWrite");
            if (rec.io.type(i).equals("FileWrite")) assertThat(rec.io.end(i) - rec.io.start(i)).isGreaterThanOrEqualTo(20 * MS);
        }

        // The findings that read fsyncs, long writes and reads are those of the whole recording.
        assertThat(ioFindings(all)).hasSize(IO_FINDINGS.size());
        assertThat(ioFindings(windowed)).isEqualTo(ioFindings(all));
        // The timeline counts every event in range and shows the same first ones.
        assertThat(JsonReport.build(windowed).at("/htmlTimeline/ioEvents").asLong()).isEqualTo(total);
        assertThat(JsonReport.build(windowed).at("/htmlTimeline/ioEventsShown").asLong())
                .isEqualTo(JsonReport.build(all).at("/htmlTimeline/ioEventsShown").asLong()).isEqualTo(StreamingAnalysis.TIMELINE_IO_EVENTS);
        for (int i = 0; i < StreamingAnalysis.TIMELINE_IO_EVENTS; i++) assertThat(rec.io.get(i)).isEqualTo(whole.io.get(i));
        assertThat(JsonReport.build(windowed).at("/analysisSampled/ioEventsKept").asLong()).isEqualTo(kept);
    }

    @Test
    void aWindowBigEnoughForTheRecordingKeepsEveryEvent() {
        Recording rec = new Recording();
        StreamingAnalysis s = new StreamingAnalysis(rec, r -> Options.defaults(), CHUNKS * (WRITES_PER_CHUNK + SOCKET_READS_PER_CHUNK) + SLOW_EVENTS, 1_000);
        storm(s::chunkComing, rec);
        Analysis a = s.finish(Options.defaults());
        assertThat(a.sampling().windowed()).isFalse();
        assertThat(rec.io.size()).isEqualTo(CHUNKS * (WRITES_PER_CHUNK + SOCKET_READS_PER_CHUNK) + SLOW_EVENTS);
    }

    /**
     * Each chunk: one monitor wait whose lock event names its owner, the owner in a write during it, and short writes
     * of other threads around it. The window's holders are looked up in its own I/O events, numbered after the
     * earlier windows' were dropped: the owner's write names what it did, windowed as whole.
     */
    private static Recording waitsOnAWriter(LongConsumer beforeChunk, Recording rec) {
        SourceFile f = new SourceFile(0, "broker.jfr");
        rec.files.add(f);
        int waiter = rec.thread(0, "data-plane-kafka-request-handler-0", 40, 0);
        int owner = rec.thread(0, "data-plane-kafka-request-handler-1", 41, 0);
        int other = rec.thread(0, "data-plane-kafka-request-handler-2", 42, 0);
        for (int c = 0; c < CHUNKS; c++) {
            long chunkStart = T0 + c * 1000 * MS;
            beforeChunk.accept(WRITES_PER_CHUNK + 2);
            for (int i = 0; i < WRITES_PER_CHUNK; i++) {
                long start = chunkStart + i * 90_000L;
                rec.io.add("FileWrite", start, start + 2_000, other, 0, SEGMENT, 16);
            }
            long wait = chunkStart + 500 * MS;
            rec.io.add("FileWrite", wait - MS, wait + 8 * MS, owner, 0, SEGMENT, 16 * 1024);
            rec.locks.add(LockEvent.Kind.MONITOR, wait, wait + 10 * MS, waiter, 0, "java.lang.Object", 1L, owner);
            f.startNanos = Math.min(f.startNanos, chunkStart);
            f.endNanos = chunkStart + 1000 * MS;
            f.chunks++;
        }
        return rec;
    }

    @Test
    void aWindowsHoldersAreFoundInItsOwnIoEvents() {
        Analysis all = Analyzer.analyze(waitsOnAWriter(n -> { }, new Recording()), Options.defaults());
        Recording rec = new Recording();
        StreamingAnalysis s = new StreamingAnalysis(rec, r -> Options.defaults(), WINDOW, 1_000);
        waitsOnAWriter(s::chunkComing, rec);
        Analysis windowed = s.finish(Options.defaults());

        assertThat(windowed.sampling().windows()).isEqualTo(CHUNKS / 2);
        assertThat(rec.io.size()).as("the owners' writes are short: the timeline's first only").isEqualTo(StreamingAnalysis.TIMELINE_IO_EVENTS);
        assertThat(all.waits()).hasSize(CHUNKS);
        assertThat(windowed.waits()).hasSize(CHUNKS);
        for (Wait w : windowed.waits()) {
            assertThat(w.holder).isNotNull();
            assertThat(w.holder.thread()).isEqualTo(1);
            assertThat(w.holder.op()).as("wait at %d", w.start).isEqualTo(IoOp.WRITE);
        }
        for (Wait w : all.waits()) assertThat(w.holder.op()).isEqualTo(IoOp.WRITE);
    }
}
