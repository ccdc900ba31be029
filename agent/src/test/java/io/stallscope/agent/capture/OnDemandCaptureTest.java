package io.stallscope.agent.capture;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code capture PID --out FILE} in a shared directory, where another user may plant links: the recording never
 * writes through one. The old code recorded to the predictable {@code .FILE.tmp} beside the target (JFR's
 * destination follows a link and truncates at once) and moved it over the target; a link there to a file the
 * broker's user owns (meta.properties, say) emptied that file. The capture is 0600, whatever the umask.
 */
class OnDemandCaptureTest {
    @Test
    @Timeout(value = 1, unit = TimeUnit.MINUTES)
    void linksPlantedAtThePredictableNamesAreNeverWrittenThrough(@TempDir Path shared) throws Exception {
        Path victim = Files.writeString(shared.resolve("meta.properties"), "broker.id=1\n");
        Path target = shared.resolve("capture.jfr");
        Files.createSymbolicLink(shared.resolve(".capture.jfr.tmp"), victim);

        System.clearProperty(OnDemandCapture.STATUS_PROPERTY);
        OnDemandCapture.start(TimeUnit.MILLISECONDS.toNanos(300), target.toString());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String status;
        do {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            status = System.getProperty(OnDemandCapture.STATUS_PROPERTY, "");
        } while (!status.startsWith("written") && !status.startsWith("error") && System.nanoTime() < deadline);

        assertThat(status).startsWith("written " + target);
        assertThat(Files.readString(victim, StandardCharsets.UTF_8)).as("the linked file is untouched").isEqualTo("broker.id=1\n");
        assertThat(Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(Files.size(target)).isPositive();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-------");
        try (var left = Files.list(shared)) {
            assertThat(left.map(p -> p.getFileName().toString()))
                .as("no private directory left behind").containsExactlyInAnyOrder("meta.properties", ".capture.jfr.tmp", "capture.jfr");
        }
    }
}
