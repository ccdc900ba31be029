package io.stallscope.it.mitigate;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The independent hole finder's reading of Kafka's DumpLogSegments output (the format of 2.8 to 4.x). */
class DumpedHolesTest {
    private static final String A = "/d/stress-0/00000000000000000000.log";
    private static final String B = "/d/stress-0/00000000000000001024.log";
    private static final String C = "/d/stress-0/00000000000000002048.log";

    @Test
    void aSegmentEndsAfterItsLastBatchOrAtItsBaseWhenEmpty() {
        Map<String, ?> segments = DumpedHoles.parse(String.join("\n",
            "Dumping " + A,
            "Log starting offset: 0",
            "baseOffset: 0 lastOffset: 15 count: 16 baseSequence: 0 lastSequence: 15 producerId: 0",
            "baseOffset: 16 lastOffset: 31 count: 16 baseSequence: 16 lastSequence: 31 producerId: 0",
            "Dumping " + B,
            "Starting offset: 1024",
            "Dumping " + C,
            "Log starting offset: 2048",
            "baseOffset: 2048 lastOffset: 2050 count: 3 baseSequence: 0 lastSequence: 2 producerId: 0",
            "Found 4096 invalid bytes at the end of 00000000000000002048.log"), true);
        assertThat(segments.keySet()).containsExactly(A, B, C);
        assertThat(segments.get(A).toString()).contains("next=32").contains("clean=true");
        assertThat(segments.get(B).toString()).contains("next=1024").contains("clean=true");
        assertThat(segments.get(C).toString()).contains("next=2051").contains("clean=false");
    }

    @Test
    void theFileTheToolStoppedInIsNotClean() {
        Map<String, ?> segments = DumpedHoles.parse(String.join("\n",
            "Dumping " + A,
            "baseOffset: 0 lastOffset: 15 count: 16 baseSequence: 0 lastSequence: 15 producerId: 0",
            "Dumping " + B,
            "Exception in thread \"main\" org.apache.kafka.common.errors.CorruptRecordException: Record size 0 is less than the minimum"), false);
        assertThat(segments.get(A).toString()).contains("clean=true");
        assertThat(segments.get(B).toString()).contains("clean=false");
    }
}
