package io.stallscope.it.demo;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent's start-up line, from real broker logs of the demo (paths shortened), summed up for the screen. */
class AgentStartLineTest {

    private static String line(String name) throws IOException {
        try (InputStream in = AgentStartLineTest.class.getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
    }

    @Test
    void keepsWhatWasInstrumentedWhichMitigationsAreOnAndTheCapture() throws IOException {
        assertThat(AgentStartLine.summary(line("agent-line-4.1.2-mitigations-on.txt"))).containsExactly(
            "Stallscope 0.1.0-SNAPSHOT active (premain) in Kafka 4.1.2 on JDK 17.0.15+6-Debian-1deb12u1: instrumented 11 of 11 points",
            "mitigations [roll-flush not needed on Kafka 4.1.2: the snapshot fsync already runs in the flush-log job (KAFKA-15046);"
                + " prefetch on (fetch slices of rolled segments from 4096 bytes, at most 1048576 bytes each, warmed on the request handler)]",
            "profile on (captures into /var/demo/mitigations-on/captures, chunks of 5.0 s x 3)");
    }

    @Test
    void mitigationsOffIsSaidToo() throws IOException {
        assertThat(AgentStartLine.summary(line("agent-line-3.6.2-mitigations-off.txt")))
            .contains("mitigations off")
            .anyMatch(s -> s.endsWith("in Kafka 3.6.2 on JDK 17.0.15+6-Debian-1deb12u1: instrumented 10 of 11 points"));
    }

    @Test
    void aLineOfAnotherShapeIsShownShortened() {
        assertThat(AgentStartLine.summary("Stallscope 9 active somehow " + "x".repeat(500)))
            .singleElement().satisfies(s -> assertThat(s).hasSize(300).endsWith(" ..."));
    }
}
