package io.stallscope.agent.stopstart;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The progress thread of a slow stop writes its line each interval and ends with the stop. */
class StopProgressTest {
    @Test
    void writesWhileTheStopRunsAndEndsWithIt() throws Exception {
        Breakdown stop = new Breakdown("stop", System.nanoTime());
        stop.expectLogs(3);
        stop.add(Phase.LOG_CLOSE, 1, "/data/a");
        stop.closingStarted("t-2", System.nanoTime());
        List<String> lines = new CopyOnWriteArrayList<>();
        StopProgress progress = new StopProgress(stop, TimeUnit.MILLISECONDS.toNanos(20), lines::add);
        progress.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (lines.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        progress.finish();
        progress.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(progress.isAlive()).as("ended with the stop").isFalse();
        assertThat(progress.isDaemon()).as("never keeps the JVM up").isTrue();
        assertThat(lines).hasSizeGreaterThanOrEqualTo(2)
            .allSatisfy(l -> assertThat(l).startsWith("stop in progress for ")
                .contains(": 1 of 3 logs closed, 2 left; closing now t-2 for "));
    }
}
