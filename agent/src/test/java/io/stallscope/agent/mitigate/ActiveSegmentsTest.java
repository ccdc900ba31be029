package io.stallscope.agent.mitigate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The active segment is the newest of its directory, also after rolls the listing did not see. */
class ActiveSegmentsTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void aReaderCatchingUpAfterRollsSeesEveryRolledSegmentAsRolled(@TempDir Path dir) throws Exception {
        ActiveSegments active = new ActiveSegments();
        File first = segment(dir, 0);
        assertThat(active.isActive(first, 0)).as("the only segment").isTrue();

        // rolls the listing has not seen; a follower then reads forward from the start, moments later
        File second = segment(dir, 1008);
        File third = segment(dir, 2016);
        File newest = segment(dir, 3024);
        assertThat(active.isActive(first, 2 * SECOND)).as("rolled since the listing").isFalse();
        assertThat(active.isActive(second, 2 * SECOND)).isFalse();
        assertThat(active.isActive(third, 2 * SECOND)).isFalse();
        assertThat(active.isActive(newest, 2 * SECOND)).isTrue();
    }

    @Test
    void aNewerSegmentThanListedIsListedAgainNotTakenAsNewest(@TempDir Path dir) throws Exception {
        ActiveSegments active = new ActiveSegments();
        File first = segment(dir, 0);
        assertThat(active.isActive(first, 0)).isTrue();
        File second = segment(dir, 1008);
        segment(dir, 2016);
        // within the second: the base offset newer than the listing forces a new one
        assertThat(active.isActive(second, 1)).isFalse();
    }

    @Test
    void notASegmentIsNeverActive(@TempDir Path dir) throws Exception {
        assertThat(new ActiveSegments().isActive(Files.createFile(dir.resolve("leader-epoch-checkpoint")).toFile(), 0))
            .isFalse();
    }

    private static File segment(Path dir, long base) throws Exception {
        return Files.createFile(dir.resolve(String.format("%020d.log", base))).toFile();
    }
}
