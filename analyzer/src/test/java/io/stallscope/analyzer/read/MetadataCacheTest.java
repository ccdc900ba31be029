package io.stallscope.analyzer.read;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/** The metadata of a rotated recording is parsed once, though each chunk stamps its copy with its own start. */
class MetadataCacheTest {
    private static final long T0 = 1_700_000_000_000_000_000L;

    /** The metadata event of a chunk, at the offset its header gives. */
    private static Metadata read(MetadataCache cache, byte[] chunk) throws JfrFormatException {
        ByteBuffer buf = ByteBuffer.wrap(chunk);
        return cache.read(buf, (int) buf.getLong(24), chunk.length);
    }

    private static byte[] metadataEvent(byte[] chunk) {
        ByteBuffer buf = ByteBuffer.wrap(chunk);
        return Arrays.copyOfRange(chunk, (int) buf.getLong(24), (int) buf.getLong(16));
    }

    @Test
    void chunksWhoseMetadataDiffersOnlyInItsHeaderShareOneParse() throws JfrFormatException {
        // Start ticks far apart: the second header's varint is longer, so the event's size differs too.
        byte[] first = new TinyJfr(T0, 5_000_000L, 1_000_000_000L).chunk();
        byte[] second = new TinyJfr(T0, 5_000_000_000_000L, 1_000_000_000L).chunk();
        assertThat(metadataEvent(first)).isNotEqualTo(metadataEvent(second));

        MetadataCache cache = new MetadataCache();
        Metadata m = read(cache, first);
        assertThat(read(cache, second)).isSameAs(m);
        assertThat(m.byName.get("jdk.JavaMonitorEnter").field("previousOwner")).isGreaterThanOrEqualTo(0);
    }

    @Test
    void metadataThatDescribesOtherFieldsIsParsedAgain() throws JfrFormatException {
        TinyJfr plain = new TinyJfr(T0, 5_000_000L, 1_000_000_000L);
        TinyJfr extra = new TinyJfr(T0, 5_000_000L, 1_000_000_000L);
        extra.extraField = true;

        MetadataCache cache = new MetadataCache();
        Metadata m = read(cache, plain.chunk());
        Metadata other = read(cache, extra.chunk());
        assertThat(other).isNotSameAs(m);
        assertThat(m.byName.get("jdk.ExecutionSample").field("contextId")).isEqualTo(-1);
        assertThat(other.byName.get("jdk.ExecutionSample").field("contextId")).isGreaterThanOrEqualTo(0);
    }
}
