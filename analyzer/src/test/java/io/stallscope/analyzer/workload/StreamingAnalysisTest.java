package io.stallscope.analyzer.workload;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.StreamingAnalysis;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.bench.ChunkRepeater;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.render.JsonReport;
import io.stallscope.analyzer.render.TextReport;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real async-profiler wall+lock recording, repeated into three copies one after the other, analysed whole and
 * window by window (a window per chunk): the lock events give the same recorded waits per lock either way, and
 * the windowed report says its examples and samples are a sample.
 */
class StreamingAnalysisTest {
    private static Analysis analyze(Path jfr, long windowEvents, int keptSamples) throws Exception {
        Recording rec = new Recording();
        StreamingAnalysis s = new StreamingAnalysis(rec, r -> Options.defaults(), windowEvents, keptSamples);
        JfrFileReader.read(jfr, rec, null, s::chunkComing);
        return s.finish(Options.defaults());
    }

    private static Map<String, Long> recordedWaits(Analysis a) {
        Map<String, Long> m = new TreeMap<>();
        for (Contention c : a.contentions()) {
            if (c.recordedWaits > 0) m.put(c.key, (long) c.recordedWaits);
        }
        return m;
    }

    /** The monitor recording three times over, one copy after the other. */
    private static Path threeCopies() throws Exception {
        Path unit = Recorder.asyncProfiler("monitor");
        Path three = unit.resolveSibling("monitor-x3.jfr");
        ChunkRepeater.main(new String[] {unit.toString(), three.toString(), String.valueOf(3 * Files.size(unit))});
        return three;
    }

    @Test
    void windowsCountTheRecordedWaitsAsTheWholeDoes() throws Exception {
        Path unit = Recorder.asyncProfiler("monitor");
        Path three = threeCopies();

        Analysis whole = analyze(three, Long.MAX_VALUE, Integer.MAX_VALUE);
        Analysis windowed = analyze(three, 1, 1_000);
        int chunks = whole.recording().files.get(0).chunks;

        assertThat(whole.sampling().windows()).isEqualTo(1);
        assertThat(whole.sampling().sampled()).isFalse();
        assertThat(windowed.sampling().windows()).isEqualTo(chunks);
        assertThat(chunks).isGreaterThanOrEqualTo(3);
        assertThat(windowed.sampling().lockEvents()).isEqualTo(whole.sampling().lockEvents()).isPositive();
        assertThat(windowed.sampling().samples()).isEqualTo(whole.recording().samples.size());
        assertThat(recordedWaits(whole)).isNotEmpty();
        assertThat(recordedWaits(windowed)).isEqualTo(recordedWaits(whole));
        // Kept: at most the budget, every thread's samples still counted in full.
        assertThat(windowed.recording().samples.size()).isLessThanOrEqualTo(1_000);
        assertThat(windowed.sampling().sampleStride()).isGreaterThan(1);
        long perThread = 0;
        for (var t : windowed.recording().threads) perThread += windowed.samplesOf(t.id());
        assertThat(perThread).isEqualTo(windowed.sampling().samples());

        ByteArrayOutputStream text = new ByteArrayOutputStream();
        TextReport.write(windowed, new PrintStream(text, true, StandardCharsets.UTF_8));
        assertThat(text.toString(StandardCharsets.UTF_8)).contains("Analysed in " + chunks + " windows of chunks")
                .contains("every " + windowed.sampling().sampleStride());
        assertThat(JsonReport.build(windowed).at("/analysisSampled/windows").asInt()).isEqualTo(chunks);
        ByteArrayOutputStream wholeText = new ByteArrayOutputStream();
        TextReport.write(whole, new PrintStream(wholeText, true, StandardCharsets.UTF_8));
        assertThat(wholeText.toString(StandardCharsets.UTF_8)).doesNotContain("Analysed in");
        assertThat(JsonReport.build(whole).has("analysisSampled")).isFalse();

        // One chunk filling one window: its samples were thinned and its events dropped, and the report says so.
        Analysis one = analyze(unit, 1, 100);
        assertThat(one.sampling().windows()).isEqualTo(1);
        assertThat(one.sampling().sampled()).isTrue();
        assertThat(JsonReport.build(one).at("/analysisSampled/windows").asInt()).isEqualTo(1);
    }

    @Test
    void aWindowEndsBeforeTheChunkThatWouldTakeItPastItsBound() throws Exception {
        Path three = threeCopies();
        Analysis whole = analyze(three, Long.MAX_VALUE, Integer.MAX_VALUE);
        int chunks = whole.recording().files.get(0).chunks;
        // Three copies of a one-chunk recording: three chunks of the same events.
        assertThat(chunks).isEqualTo(3);
        long events = whole.sampling().samples() + whole.sampling().lockEvents();
        assertThat(events % 3).isZero();
        long perChunk = events / 3;

        // Two chunks fill a window of exactly their events; one event less, and each chunk is a window of its own.
        assertThat(analyze(three, 2 * perChunk, Integer.MAX_VALUE).sampling().windows()).isEqualTo(2);
        assertThat(analyze(three, 2 * perChunk - 1, Integer.MAX_VALUE).sampling().windows()).isEqualTo(3);
        // A chunk bigger than a window is a window alone, the last one included.
        assertThat(analyze(three, perChunk - 1, Integer.MAX_VALUE).sampling().windows()).isEqualTo(3);
    }
}
