package io.stallscope.agent.capture;

import io.stallscope.agent.logdir.KnownLogDirs;
import io.stallscope.agent.logdir.LogDirJfr;
import io.stallscope.agent.logdir.MountTable;
import io.stallscope.agent.logging.BrokerLog;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every chunk the capture recorder writes names the log dirs' file systems (stallscope.LogDir, period everyChunk),
 * so a capture made of any kept chunks carries them; the on-demand capture's settings enable it too.
 */
class LogDirInCaptureTest {
    private static final String TABLE = "27 1 254:0 / / rw - ext4 /dev/vda rw\n301 27 7:3 / /data/xfs rw - xfs /dev/loop3 rw\n";

    @Test
    void eachCaptureChunkCarriesTheLogDirs(@TempDir Path dir) throws Exception {
        assertThat(JfrSettings.of(false)).containsEntry("stallscope.LogDir#enabled", "true")
            .containsEntry("stallscope.LogDir#period", "everyChunk");
        assertThat(JfrSettings.of(true)).containsEntry("stallscope.LogDir#period", "everyChunk");

        KnownLogDirs dirs = new KnownLogDirs(() -> MountTable.parse(TABLE), BrokerLog.get());
        dirs.seen("/data/xfs/kafka/orders-3/00000000000000000000.log");
        LogDirJfr jfr = new LogDirJfr(dirs);
        dirs.addListener(jfr);
        try {
            Path work = Files.createDirectory(dir.resolve("work"));
            ChunkRing ring = new ChunkRing(List.of(JdkRecorder.of(false)), work, 3);
            ring.rotate();
            Thread.sleep(20);
            ring.rotate();
            Thread.sleep(20);
            ring.rotate();
            ring.stop();
            List<Chunk> kept = ring.covering(0, Long.MAX_VALUE);
            assertThat(kept).hasSizeGreaterThanOrEqualTo(2);
            // each chunk on its own, as a capture cut from it alone would be
            for (Chunk chunk : kept) {
                Path capture = dir.resolve("c" + System.nanoTime() + ".jfr");
                CaptureWriter.write(List.of(chunk), capture);
                List<RecordedEvent> logDirs = RecordingFile.readAllEvents(capture).stream()
                    .filter(e -> e.getEventType().getName().equals("stallscope.LogDir")).collect(Collectors.toList());
                assertThat(logDirs).as("stallscope.LogDir in chunk " + chunk).isNotEmpty().allSatisfy(e -> {
                    assertThat(e.getString("logDir")).isEqualTo("/data/xfs/kafka");
                    assertThat(e.getString("fileSystem")).isEqualTo("xfs");
                    assertThat(e.getString("device")).isEqualTo("/dev/loop3");
                    assertThat(e.getString("mountPoint")).isEqualTo("/data/xfs");
                });
            }
        } finally {
            dirs.close();
        }
    }
}
