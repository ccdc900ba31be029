package io.stallscope.agent.holes;

import io.stallscope.agent.kafka.KafkaJars;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The power-cut hole on every catalog version, without a broker: a log of three segments written by that version's
 * own FileRecords and MemoryRecords, then the first segment cut back on a batch boundary (as a power cut leaves it
 * when the next segment's name reached the disk before this one's data), or emptied. The batch-header reader agrees
 * with Kafka's own reading of the same files, and check-logs finds the hole, and only then.
 */
class HolesOnEveryVersionTest {
    @Test
    void everyVersionsSegmentsReadAsKafkaReadsThemAndTheCutIsAHole(@TempDir Path tmp) throws Exception {
        List<String> wrong = new ArrayList<>();
        for (String version : KafkaJars.catalog()) {
            Path logDir = Files.createDirectories(tmp.resolve(version));
            Path log = Files.createDirectories(logDir.resolve("orders-3"));
            Path first = log.resolve(KafkaRecordsWriter.name(0));
            long firstBatchEnd;
            try (KafkaRecordsWriter kafka = KafkaRecordsWriter.of(version)) {
                firstBatchEnd = kafka.append(first, 0, 3);
                kafka.append(first, 3, 5);
                kafka.append(first, 8, 2);
                kafka.append(log.resolve(KafkaRecordsWriter.name(10)), 10, 5);
                kafka.append(log.resolve(KafkaRecordsWriter.name(15)), 15, 5);

                List<Long> kafkasOwn = kafka.nextOffsets(first);
                SegmentEnd ours = SegmentEnd.read(first, 0);
                if (!kafkasOwn.equals(Arrays.asList(3L, 8L, 10L)) || ours.nextOffset() != 10 || ours.tornTail()) {
                    wrong.add(version + ": Kafka reads " + kafkasOwn + ", the header reader ends at " + ours.nextOffset());
                }
                expect(wrong, version + " intact", logDir, 0, null);

                truncate(first, firstBatchEnd);
                if (!kafka.nextOffsets(first).equals(Arrays.asList(3L))) {
                    wrong.add(version + ": Kafka does not read the cut segment as one batch: " + kafka.nextOffsets(first));
                }
                expect(wrong, version + " cut", logDir, CheckLogsCommand.HOLE,
                    "hole in orders-3: offsets 3-9 (7 offsets) missing between 00000000000000000000.log (" + firstBatchEnd
                        + " bytes, offsets 0-2) and 00000000000000000010.log (");

                truncate(first, 0);
                expect(wrong, version + " emptied", logDir, CheckLogsCommand.HOLE,
                    "hole in orders-3: offsets 0-9 (10 offsets) missing between 00000000000000000000.log (0 bytes, no"
                        + " records) and 00000000000000000010.log (");
            }
        }
        assertThat(wrong).isEmpty();
    }

    private static void expect(List<String> wrong, String what, Path logDir, int status, String line) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = CheckLogsCommand.run(Arrays.asList(logDir.toString()), new PrintStream(out, true),
            new PrintStream(err, true));
        String text = out.toString(StandardCharsets.UTF_8);
        if (exit != status || (line == null ? text.contains("hole in") : !text.contains(line))) {
            wrong.add(what + ": exit " + exit + ", printed " + text + err.toString(StandardCharsets.UTF_8));
        }
    }

    static void truncate(Path file, long size) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size);
        }
    }
}
