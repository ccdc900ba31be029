package io.stallscope.agent.holes;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.FileRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * check-logs' rules on logs written with Kafka's FileRecords and MemoryRecords (the test's kafka-clients, 3.9.1): the
 * gaps that are no hole (compacted, internal topics, directories set aside, below the log start offset, a segment
 * Kafka has not recovered yet), transactions and legacy formats read to their true end, and the exit statuses.
 */
class CheckLogsTest {
    @TempDir
    Path logDir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** offsets 0-2 and 3-9 in the first segment, 10-14 in the second: cut after the first batch, 3-9 are missing. */
    private void cutLog(String dirName) throws Exception {
        cutLog(dirName, 0);
    }

    /** The same, with extra bytes of the second batch left after the cut (a tail Kafka's recovery would truncate). */
    private void cutLog(String dirName, int extra) throws Exception {
        Path log = Files.createDirectories(logDir.resolve(dirName));
        Path first = log.resolve(KafkaRecordsWriter.name(0));
        append(first, MemoryRecords.withRecords(0, Compression.NONE, records(3)));
        long boundary = Files.size(first);
        append(first, MemoryRecords.withRecords(3, Compression.NONE, records(7)));
        append(log.resolve(KafkaRecordsWriter.name(10)), MemoryRecords.withRecords(10, Compression.NONE, records(5)));
        HolesOnEveryVersionTest.truncate(first, boundary + extra);
    }

    @BeforeEach
    void noOutputYet() {
        out.reset();
        err.reset();
    }

    @Test
    void aCutLogIsAHoleWithItsOffsetsFilesAndSizes() throws Exception {
        cutLog("orders-3");
        assertThat(run(logDir.toString())).isEqualTo(3);
        assertThat(out()).contains("hole in orders-3: offsets 3-9 (7 offsets) missing between 00000000000000000000.log (")
            .contains(" and 00000000000000000010.log (").contains("Kafka serves past it").contains("1 hole(s) in 1 log(s)");
        // one partition directory alone, as the operator may point at it
        noOutputYet();
        assertThat(run(logDir.resolve("orders-3").toString())).isEqualTo(3);
    }

    @Test
    void compactedLogsAreNoHoleWhetherTheCheckpointOrTheOperatorSaysSo() throws Exception {
        cutLog("orders-3");
        assertThat(run(logDir.toString(), "--compacted", "payments,orders")).isEqualTo(0);
        assertThat(out()).contains("unverifiable (compacted").doesNotContain("hole in");
        noOutputYet();
        Files.write(logDir.resolve(OffsetCheckpoint.CLEANER), Arrays.asList("0", "1", "orders 3 4"));
        assertThat(run(logDir.toString())).isEqualTo(0);
        assertThat(out()).contains("unverifiable (compacted");
    }

    @Test
    void internalTopicsAndDirectoriesSetAsideAreUnverifiable() throws Exception {
        for (String dir : new String[] {"__consumer_offsets-7", "__transaction_state-0", "__cluster_metadata-0",
            "orders-3.8a1c27e5f2b84d0f9a3b1c2d3e4f5a6b-delete", "orders-4.8a1c27e5f2b84d0f9a3b1c2d3e4f5a6b-future",
            "orders-5.8a1c27e5f2b84d0f9a3b1c2d3e4f5a6b-stray"}) {
            cutLog(dir);
        }
        assertThat(run(logDir.toString())).isEqualTo(0);
        assertThat(out()).doesNotContain("hole in").contains("__consumer_offsets is compacted or trimmed by Kafka itself")
            .contains("a delete directory").contains("a future directory").contains("a stray directory")
            .contains("0 hole(s) in 6 log(s)");
    }

    @Test
    void offsetsBelowTheLogStartOffsetAreNeverMissing() throws Exception {
        cutLog("orders-3");
        Files.write(logDir.resolve(OffsetCheckpoint.LOG_START), Arrays.asList("0", "1", "orders 3 10"));
        assertThat(run(logDir.toString())).isEqualTo(0);
        // DeleteRecords into the gap: only what lies above the log start offset is missing
        Files.write(logDir.resolve(OffsetCheckpoint.LOG_START), Arrays.asList("0", "1", "orders 3 6"));
        noOutputYet();
        assertThat(run(logDir.toString())).isEqualTo(3);
        assertThat(out()).contains("offsets 6-9 (4 offsets)");
    }

    @Test
    void aTornTailIsKafkasToTruncateNotAHole() throws Exception {
        cutLog("orders-3", 20);
        assertThat(run(logDir.toString())).isEqualTo(0);
        assertThat(out()).contains("not recovered yet: 00000000000000000000.log has 20 bytes after its last complete batch");
    }

    /** XFS may keep a file's new size without its data: zeros past the last batch, which Kafka's recovery truncates too. */
    @Test
    void aZeroedTailIsKafkasToTruncateToo() throws Exception {
        cutLog("orders-3");
        Path first = logDir.resolve("orders-3").resolve(KafkaRecordsWriter.name(0));
        HolesOnEveryVersionTest.truncate(first, Files.size(first) + 4096);
        assertThat(run(logDir.toString())).isEqualTo(0);
        assertThat(out()).contains("not recovered yet: 00000000000000000000.log has 4096 bytes after its last complete batch");
    }

    /** Aborted data and the control batches that end a transaction keep their offsets: no gap before the next segment. */
    @Test
    void transactionsAndTheirMarkersOccupyTheirOffsets() throws Exception {
        Path log = Files.createDirectories(logDir.resolve("orders-3"));
        Path first = log.resolve(KafkaRecordsWriter.name(0));
        append(first, MemoryRecords.withTransactionalRecords(0, Compression.NONE, 7L, (short) 0, 0, 0, records(4)));
        append(first, MemoryRecords.withEndTransactionMarker(4, 1L, 0, 7L, (short) 0,
            new EndTransactionMarker(ControlRecordType.ABORT, 0)));
        append(log.resolve(KafkaRecordsWriter.name(5)), MemoryRecords.withRecords(5, Compression.NONE, records(1)));
        assertThat(SegmentEnd.read(first, 0).nextOffset()).isEqualTo(5);
        assertThat(run(logDir.toString())).isEqualTo(0);
        assertThat(out()).doesNotContain("hole in");
    }

    /** Message format v0/v1: a compressed wrapper's offset is its last inner offset. */
    @Test
    void legacyFormatsEndWhereKafkaSaysTheyEnd() throws Exception {
        Path segment = logDir.resolve(KafkaRecordsWriter.name(100));
        append(segment, MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, 100, Compression.gzip().build(),
            TimestampType.CREATE_TIME, records(6)));
        append(segment, MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V0, 106, Compression.NONE,
            TimestampType.NO_TIMESTAMP_TYPE, records(2)));
        long kafkas;
        try (FileRecords f = FileRecords.open(segment.toFile())) {
            long last = -1;
            for (RecordBatch b : f.batches()) {
                last = b.nextOffset();
            }
            kafkas = last;
        }
        assertThat(kafkas).isEqualTo(108);
        assertThat(SegmentEnd.read(segment, 100).nextOffset()).isEqualTo(kafkas);
    }

    @Test
    void usageErrorsAndUnreadableDirsAreOneLine() throws Exception {
        assertThat(run()).isEqualTo(2);
        assertThat(err()).startsWith("stallscope: check-logs needs at least one log dir");
        noOutputYet();
        assertThat(run(logDir.toString(), "--compacted")).isEqualTo(2);
        assertThat(err().trim()).doesNotContain("\n").contains("--compacted needs a topic name");
        noOutputYet();
        assertThat(run("--bogus", logDir.toString())).isEqualTo(2);
        assertThat(err().trim()).isEqualTo("stallscope: check-logs: unknown option '--bogus'");
        noOutputYet();
        Path missing = logDir.resolve("no-such-dir");
        assertThat(run(missing.toString())).isEqualTo(1);
        assertThat(err().trim()).isEqualTo("stallscope: check-logs: cannot read " + missing + ": " + missing
            + " is not a readable directory");
    }

    @Test
    void aHoleInOneDirWinsOverAnUnreadableOther() throws Exception {
        cutLog("orders-3");
        assertThat(run(logDir.resolve("no-such-dir").toString(), logDir.toString())).isEqualTo(3);
    }

    private int run(String... args) {
        return CheckLogsCommand.run(Arrays.asList(args), new PrintStream(out, true), new PrintStream(err, true));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private static void append(Path segment, MemoryRecords records) throws Exception {
        try (FileRecords f = FileRecords.open(segment.toFile())) {
            f.append(records);
            f.flush();
        }
    }

    private static SimpleRecord[] records(int n) {
        List<SimpleRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new SimpleRecord(("value " + i).getBytes(StandardCharsets.UTF_8)));
        }
        return out.toArray(new SimpleRecord[0]);
    }
}
