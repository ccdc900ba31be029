package io.stallscope.it.broker;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FixedRateTest {
    @Test
    void aSendAlreadyDueGoesAtOnce() {
        Thread.currentThread().interrupt(); // would make any sleep throw: a due send must not sleep
        try {
            assertThat(new FixedRate(10).awaitSend(0)).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void anInterruptedWaitTellsTheSenderToStopAndKeepsTheInterrupt() {
        FixedRate oncePerHour = new FixedRate(1);
        Thread.currentThread().interrupt();
        try {
            assertThat(oncePerHour.awaitSend(3600)).isFalse();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
