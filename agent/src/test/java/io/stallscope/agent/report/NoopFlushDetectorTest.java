package io.stallscope.agent.report;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class NoopFlushDetectorTest {
    /** Shaped like LogSegment as far as the detector cares: a public size(). */
    public static final class Segment {
        private int size;

        public int size() {
            return size;
        }
    }

    @Test
    void aFlushWithNothingWrittenSinceTheLastOneIsANoop() {
        NoopFlushDetector detector = new NoopFlushDetector();
        Segment segment = new Segment();
        segment.size = 4096;
        assertThat(detector.isNoop(segment)).as("first flush seen: unknown, counted as real").isFalse();
        assertThat(detector.isNoop(segment)).as("same size again: nothing to flush").isTrue();
        segment.size = 8192;
        assertThat(detector.isNoop(segment)).as("appended since").isFalse();
        assertThat(detector.isNoop(segment)).isTrue();
    }

    @Test
    void anEmptySegmentIsANoopAndUnknownShapesAreNot() {
        NoopFlushDetector detector = new NoopFlushDetector();
        assertThat(detector.isNoop(new Segment())).isTrue();
        assertThat(detector.isNoop(new Object())).isFalse();
        assertThat(detector.isNoop(null)).isFalse();
    }
}
