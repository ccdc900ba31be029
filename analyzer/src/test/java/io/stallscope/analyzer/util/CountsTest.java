package io.stallscope.analyzer.util;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CountsTest {
    @Test
    void groupsThousandsAndMakesTheNounAgree() {
        assertThat(Counts.of(1, "thread")).isEqualTo("1 thread");
        assertThat(Counts.of(0, "wait")).isEqualTo("0 waits");
        assertThat(Counts.of(2, "network thread")).isEqualTo("2 network threads");
        assertThat(Counts.of(20_991_198, "wait")).isEqualTo("20,991,198 waits");
    }
}
