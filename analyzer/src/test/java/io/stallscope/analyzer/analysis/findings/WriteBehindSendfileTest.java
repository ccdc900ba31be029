package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.model.IoEvent;
import io.stallscope.analyzer.model.LogDir;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The edges of the write-behind-sendfile rule on recordings built in memory: the JDK's own jdk.FileWrite and
 * jdk.FileRead events (no agent span), thresholds, log-dir prefixes, a broker per file. The recorded cases are in
 * WriteBehindRecordingTest.
 */
class WriteBehindSendfileTest {
    private static final long T0 = 1_800_000_000_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final String SEGMENT = "/data/kafka/orders-3/00000000000000000000.log";

    private final Recording rec = new Recording();
    private final int handler;
    private final int network;

    WriteBehindSendfileTest() {
        SourceFile f = new SourceFile(0, "broker.jfr");
        f.startNanos = T0;
        f.endNanos = T0 + 5_000 * MS;
        rec.files.add(f);
        handler = rec.thread(0, "data-plane-kafka-request-handler-2", 40, 0);
        network = rec.thread(0, "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0", 30, 0);
    }

    private void write(int thread, String path, long fromMs, long toMs) {
        rec.io.add(new IoEvent("FileWrite", T0 + fromMs * MS, T0 + toMs * MS, thread, 0, path, 4096));
    }

    private void read(int thread, String path, long fromMs, long toMs) {
        rec.io.add(new IoEvent("FileRead", T0 + fromMs * MS, T0 + toMs * MS, thread, 0, path, 1 << 20));
    }

    private void logDir(int file, String dir, String fs) {
        rec.logDirs.add(new LogDir(file, dir, fs, "/dev/loop3", "/data"));
    }

    private List<Finding> findings() {
        return Analyzer.analyze(rec, Options.defaults()).findings().stream()
                .filter(f -> f.kind().equals(Finding.WRITE_BEHIND_SENDFILE)).toList();
    }

    @Test
    void theJdksOwnFileEventsSufficeOnXfs() {
        logDir(0, "/data/kafka", "xfs");
        write(handler, SEGMENT, 100, 160);
        read(network, SEGMENT, 90, 400);
        List<Finding> f = findings();
        assertThat(f).hasSize(1);
        assertThat(f.get(0).details()).containsEntry("writerThread", "data-plane-kafka-request-handler-2")
                .containsEntry("readerThread", "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0")
                .containsEntry("writeSource", "jdk.FileWrite").containsEntry("readSource", "jdk.FileRead")
                .containsEntry("topic", "orders").containsEntry("partition", 3).containsEntry("overlapMs", 60.0)
                .containsEntry("fileSystem", "xfs").containsEntry("path", SEGMENT);
        assertThat(f.get(0).weightNanos()).isEqualTo(60 * MS);
    }

    @Test
    void thresholdsOnTheWriteAndTheOverlap() {
        logDir(0, "/data/kafka", "xfs");
        write(handler, SEGMENT, 100, 119); // 19 ms: a write, not a stall
        read(network, SEGMENT, 0, 1000);
        write(handler, "/data/kafka/orders-4/00000000000000000000.log", 200, 230);
        read(network, "/data/kafka/orders-4/00000000000000000000.log", 226, 300); // 4 ms of overlap
        assertThat(findings()).isEmpty();
        write(handler, SEGMENT, 500, 520); // 20 ms
        assertThat(findings()).singleElement().satisfies(f -> assertThat(f.details()).containsEntry("overlapMs", 20.0));
    }

    @Test
    void aLogDirThatIsOnlyAStringPrefixDoesNotHoldTheFile() {
        logDir(0, "/data/kafka", "ext4");
        logDir(0, "/data/kafka2", "xfs"); // not the file's
        write(handler, SEGMENT, 100, 150);
        read(network, SEGMENT, 100, 150);
        assertThat(findings()).as("ext4: the overlap is coincidence").isEmpty();
        // the longest log dir holding the file decides: a nested one on XFS
        logDir(0, "/data/kafka/orders-3", "xfs");
        assertThat(new LogDirFileSystems(rec.logDirs).of(0, SEGMENT).fileSystem()).isEqualTo("xfs");
        assertThat(new LogDirFileSystems(rec.logDirs).of(0, "/data/kafka2x/orders-3/x.log")).isNull();
    }

    @Test
    void eachBrokersLogDirsSpeakForItsOwnFilesOnly() {
        // file 1, another broker, is on XFS; file 0's log dir carries no label: unknown, and 50 ms is too short then
        logDir(1, "/data/kafka", "xfs");
        write(handler, SEGMENT, 100, 150);
        read(network, SEGMENT, 100, 150);
        assertThat(findings()).isEmpty();
    }

    @Test
    void theWritersOwnReadAndAToolsReadAreNoReader() {
        logDir(0, "/data/kafka", "xfs");
        int capture = rec.thread(0, "stallscope-capture", 50, 0);
        write(handler, SEGMENT, 100, 150);
        read(handler, SEGMENT, 100, 150);
        read(capture, SEGMENT, 100, 150);
        assertThat(findings()).isEmpty();
    }

    @Test
    void anAppendSpanAndItsOwnJdkEventAreOneWrite() {
        logDir(0, "/data/kafka", "xfs");
        rec.spans.add(new Span("stallscope.RecordsAppend", T0 + 100 * MS, T0 + 200 * MS, handler, "records_append",
                "request_handler", "orders", 3, 4096, SEGMENT, false));
        write(handler, SEGMENT, 101, 199);
        rec.spans.add(new Span("stallscope.TransferTo", T0 + 50 * MS, T0 + 300 * MS, network, "transfer_to", "network",
                "orders", 3, 1 << 20, SEGMENT, false));
        List<Finding> f = findings();
        assertThat(f).singleElement().satisfies(x -> assertThat(x.details()).containsEntry("appends", 1)
                .containsEntry("writerOp", "records_append").containsEntry("overlapMs", 100.0));
    }

    private List<String> chainOf(long readBytes, Span.Behind behind) {
        logDir(0, "/data/kafka", "xfs");
        rec.spans.add(new Span("stallscope.RecordsAppend", T0 + 100 * MS, T0 + 200 * MS, handler, "records_append",
                "request_handler", "orders", 3, 4096, SEGMENT, false));
        rec.spans.add(new Span("stallscope.TransferTo", T0 + 50 * MS, T0 + 300 * MS, network, "transfer_to", "network",
                "orders", 3, readBytes, SEGMENT, false, behind));
        Finding f = findings().get(0);
        assertThat(f.evidence().get(0)).startsWith("chain 1, waited: 1 handler (1 append) to orders-3/00000000000000000000.log");
        assertThat(f.evidence().get(1)).startsWith("chain 2, held by: " + rec.threadName(network)).contains("IOLOCK");
        assertThat(f.evidence().get(2)).startsWith("chain 3, doing: transfer_to of orders-3/00000000000000000000.log for 250.0 ms");
        return f.evidence().stream().filter(e -> e.startsWith("chain ")).toList();
    }

    /** 1 MiB in 250 ms is a disk's pace: the chain ends with the cold read, and says it is inferred. */
    @Test
    void aReadAtADisksPaceEndsTheChainAsAColdRead() {
        List<String> chain = chainOf(1 << 20, null);
        assertThat(chain).hasSize(4);
        assertThat(chain.get(3)).startsWith("chain 4, slow because: it moved 1,048,576 bytes in 250.0 ms, 4.19 MB/s")
                .contains("cold read").endsWith("[inferred: the read's bytes and time]");
    }

    /** 64 MiB in 250 ms came from the page cache: nothing says why the read was slow, so no link is made up. */
    @Test
    void aReadAtThePageCachesPaceGetsNoWhy() {
        assertThat(chainOf(64L << 20, null)).hasSize(3);
        rec.spans.clear();
        assertThat(chainOf(-1, null)).as("no byte count, no pace").hasSize(3);
    }

    /** The agent's own behind fields on the read say why it was slow, as recorded, before any pace. */
    @Test
    void theReadsRecordedBehindComesFirst() {
        List<String> chain = chainOf(1 << 20, new Span.Behind("segment_flush", "kafka-scheduler-3", 180, "device"));
        assertThat(chain).hasSize(4);
        assertThat(chain.get(3)).isEqualTo("chain 4, slow because: its transfer_to ran 180 ms behind kafka-scheduler-3's "
                + "segment_flush, sharing the device [recorded: the agent's behind fields]");
    }

    @Test
    void aThreadsRecordedReadsAnswerWhetherAnyOverlapsAWindow() {
        java.util.function.BiFunction<Long, Long, WriteBehindSendfile.Read> r =
                (from, to) -> new WriteBehindSendfile.Read(1, "/p", from, to, "transfer_to", "span", 0, 0);
        // a long read early, short ones later, out of order
        WriteBehindSendfile.Busy busy = new WriteBehindSendfile.Busy(List.of(r.apply(500L, 510L), r.apply(0L, 300L), r.apply(400L, 410L)));
        assertThat(busy.overlaps(100, 120)).as("inside the long read").isTrue();
        assertThat(busy.overlaps(300, 350)).as("touching its end").isTrue();
        assertThat(busy.overlaps(301, 399)).as("between reads").isFalse();
        assertThat(busy.overlaps(350, 400)).isTrue();
        assertThat(busy.overlaps(511, 900)).isFalse();
        assertThat(busy.overlaps(-50, -1)).isFalse();
        assertThat(new WriteBehindSendfile.Busy(List.of()).overlaps(0, 1000)).isFalse();
    }
}
