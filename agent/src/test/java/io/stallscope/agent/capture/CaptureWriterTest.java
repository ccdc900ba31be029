package io.stallscope.agent.capture;

import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ring with the JDK's recorder, for real: chunks rotate, only the last ones are kept, and the chunks
 * written into one capture form a single JFR file the JDK's own parser reads end to end.
 */
class CaptureWriterTest {
    @Name("stallscope.test.Marker")
    static final class Marker extends Event {
        int n;
    }

    @Test
    void chunksJoinIntoOneReadableFileAndOldChunksAreDropped(@TempDir Path dir) throws Exception {
        Path work = Files.createDirectory(dir.resolve("work"));
        java.util.Map<String, String> settings = new java.util.HashMap<>(JfrSettings.of(false));
        settings.put("stallscope.test.Marker#enabled", "true");
        ChunkRing ring = new ChunkRing(List.of(new JdkRecorder(settings, "test")), work, 2);
        ring.rotate();
        for (int chunk = 0; chunk < 4; chunk++) {
            Marker m = new Marker();
            m.n = chunk;
            m.commit();
            Thread.sleep(20);
            ring.rotate();
        }
        ring.stop();
        List<Chunk> kept = ring.covering(0, Long.MAX_VALUE);
        assertThat(kept).hasSize(2);
        try (var files = Files.list(work)) {
            assertThat(files.count()).as("dropped chunks are deleted, the stopped one stays").isEqualTo(3);
        }
        Path capture = dir.resolve(CaptureNames.of(java.time.Instant.parse("2026-11-21T08:15:02Z"), "records_append"));
        assertThat(capture.getFileName().toString()).isEqualTo("stallscope-20261121T081502Z-records_append.jfr");
        long bytes = CaptureWriter.write(kept, capture);
        assertThat(bytes).isEqualTo(Files.size(capture)).isLessThanOrEqualTo(CaptureWriter.size(kept));
        assertThat(repeatedChunks(capture))
            .as("each JFR chunk written once (JFR's repository chunk at a switch is in both recordings' streams)")
            .isZero();
        List<Integer> seen = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(capture)) {
            if (e.getEventType().getName().equals("stallscope.test.Marker")) {
                seen.add(e.getInt("n"));
            }
        }
        assertThat(seen).as("the markers of the last two closed chunks, in order").containsExactly(2, 3);
        try (var files = Files.list(dir)) {
            assertThat(files.filter(f -> f.getFileName().toString().endsWith(".tmp"))).isEmpty();
        }
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(capture)))
            .as("a capture is the broker's user's alone, whatever the umask").isEqualTo("rw-------");
    }

    /** Chunks of the file that repeat an earlier chunk byte for byte, found by the chunk headers' sizes. */
    private static int repeatedChunks(Path file) throws Exception {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Files.readAllBytes(file));
        java.util.Set<String> seen = new java.util.HashSet<>();
        int repeats = 0;
        for (int at = 0; at < b.limit(); ) {
            assertThat(b.getInt(at)).as("chunk magic at byte " + at).isEqualTo(0x464c5200);
            int size = (int) b.getLong(at + 8);
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            sha.update(b.array(), at, size);
            if (!seen.add(new java.math.BigInteger(1, sha.digest()).toString(16))) {
                repeats++;
            }
            at += size;
        }
        return repeats;
    }
}
