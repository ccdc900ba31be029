package io.stallscope.analyzer.read;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which chunks are read in parts, and in how many (that parts read as the whole chunk does: ThreadCountTest). */
class ChunkPartsTest {
    private static final long MB = 1L << 20;

    @Test
    void aFileOfOneOrTwoBigChunksIsSplitSoEveryThreadHasWork() {
        // One 15 MB chunk on two threads: four parts of a quarter each.
        assertThat(JfrFileReader.partsOf(15 * MB, 15 * MB, 2)).isEqualTo(4);
        // Chunks of 11 and 4 MB: the big one in two, the small one whole.
        assertThat(JfrFileReader.partsOf(11 * MB, 15 * MB, 2)).isEqualTo(2);
        assertThat(JfrFileReader.partsOf(4 * MB, 15 * MB, 2)).isEqualTo(1);
        // At most two parts per thread.
        assertThat(JfrFileReader.partsOf(1024 * MB, 1024 * MB, 2)).isEqualTo(4);
    }

    @Test
    void smallChunksManyChunksAndOneThreadAreNotSplit() {
        assertThat(JfrFileReader.partsOf(MB / 2, MB / 2, 2)).isEqualTo(1);
        assertThat(JfrFileReader.partsOf(13 * MB, 2048 * MB, 2)).isEqualTo(1);
        assertThat(JfrFileReader.partsOf(15 * MB, 15 * MB, 1)).isEqualTo(1);
    }
}
