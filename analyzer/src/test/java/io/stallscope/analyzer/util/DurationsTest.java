package io.stallscope.analyzer.util;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A storm's summed waiting reads as hours, a single wait as milliseconds, and no value jumps a unit when rounded. */
class DurationsTest {
    @Test
    void picksTheUnitAPersonReads() {
        assertThat(Durations.text(736_350_000L)).isEqualTo("736.4 ms");
        assertThat(Durations.text(0)).isEqualTo("0.0 ms");
        assertThat(Durations.text(201_338_500_000L)).isEqualTo("201.3 s");
        // 35957653.2 ms: what the 500 MB storm's top lock used to print.
        assertThat(Durations.text(35_957_653_200_000L)).isEqualTo("10.0 h");
    }

    @Test
    void roundsAtTheEdgesIntoTheNextUnitRatherThanPrintingTenThousand() {
        assertThat(Durations.text(9_999_940_000L)).isEqualTo("9999.9 ms");
        assertThat(Durations.text(9_999_950_000L)).isEqualTo("10.0 s");
        assertThat(Durations.text(9_999_949_999_999L)).isEqualTo("9999.9 s");
        assertThat(Durations.text(9_999_950_000_000L)).isEqualTo("2.8 h");
    }

    @Test
    void aListSharesTheUnitOfItsLargest() {
        assertThat(Durations.list(new long[] {470_000_000L, 460_000_000L})).isEqualTo("470.0, 460.0 ms");
        assertThat(Durations.list(new long[] {35_200_000_000L, 400_000_000L})).isEqualTo("35.2, 0.4 s");
        assertThat(Durations.list(new long[0])).isEmpty();
    }

    @Test
    void jsonKeepsMillisecondsToTwoDecimalsWhateverTheSize() {
        assertThat(Durations.ms(736_354_999L)).isEqualTo(736.35);
        assertThat(Durations.ms(36_000_000_000_000L)).isEqualTo(36_000_000.0);
        assertThat(Durations.ms(4_999L)).isEqualTo(0.0);
        assertThat(Durations.ms(5_000L)).isEqualTo(0.01);
    }
}
