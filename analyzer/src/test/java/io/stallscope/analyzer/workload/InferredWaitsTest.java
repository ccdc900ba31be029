package io.stallscope.analyzer.workload;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On async-profiler's wall + lock recordings of {@link ContentionProgram} (made by {@link Recorder}, shared with
 * the other recording tests): a wait is inferred from samples only where the samples show one. async-profiler
 * samples its own lock callbacks (LockTracer, UnsafeParkHook) after the lock was taken, when the thread already
 * holds it; those samples are no wait, and the program's log of who held the lock when says so.
 */
class InferredWaitsTest {
    @ParameterizedTest
    @ValueSource(strings = {"monitor", "reentrant"})
    void noWaitIsInferredFromTheProfilersCallbacksNorByTheHolder(String mode) throws Exception {
        Path jfr = Recorder.asyncProfiler(mode);
        Recording rec = new Recording();
        JfrFileReader.read(jfr, rec, null);
        assertThat(rec.locks).as("lock events").isNotEmpty();
        Analysis a = Analyzer.analyze(rec, Options.defaults());
        if (mode.equals("reentrant")) {
            // The rule is exercised: parked samples inside async-profiler's park hook are at the lock site.
            long inHook = 0;
            for (int s = 0; s < rec.stacks.size(); s++) {
                if (a.classifier().lockWait(s) == null) continue;
                for (int f : rec.stacks.frames(s)) {
                    if (rec.frames.name(f).contains("UnsafeParkHook")) inHook++;
                }
            }
            assertThat(inHook).as("stacks at the lock site inside UnsafeParkHook").isPositive();
        }

        List<Wait> inferred = a.waits().stream().filter(w -> !w.recorded).toList();
        for (Wait w : inferred) {
            assertThat(w.samples).as("an inferred wait's evidence").isPositive();
            for (int f : rec.stacks.frames(w.stack)) {
                assertThat(rec.frames.name(f)).as("a frame of an inferred wait's stack").doesNotContain("LockTracer")
                        .doesNotContain("UnsafeParkHook");
            }
        }
        // The waiting thread did not hold the lock then (two sampling intervals of slack at either end: a sample
        // is taken some time in its interval).
        List<Recorder.Hold> truth = Recorder.truth(jfr);
        long slack = 2 * a.intervals()[0];
        long heldByWaiter = inferred.stream().filter(w -> w.siteMethod.contains("ContentionProgram")).filter(w -> truth.stream()
                .anyMatch(h -> h.thread().equals(rec.threadName(w.thread)) && h.from() + slack <= w.start && w.end <= h.to() - slack))
                .count();
        assertThat(heldByWaiter).as("inferred waits made while the waiting thread held the lock").isZero();
        // What the report says of them.
        a.contentions().forEach(c -> assertThat(c.source()).isEqualTo(c.inferredWaits == 0 ? "recorded"
                : c.recordedWaits == 0 ? "inferred" : "recorded+inferred"));
        assertThat(a.contentions().get(0).recordedWaits).as("the top lock's recorded waits").isPositive();
    }
}
