package io.stallscope.analyzer.workload;

import io.stallscope.analyzer.bench.ChunkRepeater;
import io.stallscope.analyzer.cli.Main;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.read.JfrFileReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chunks are read, and waits attributed, on several threads (-Dstallscope.threads); the result must not depend
 * on how many. Real multi-chunk recordings (async-profiler and JDK recordings of the contention program, their
 * chunks repeated later in time as a rotating recording's are, and a jfrsync file) read and reported with one
 * thread and with three must give the same samples in every lane and byte-identical text and JSON reports.
 */
class ThreadCountTest {

    static <T> T withThreads(int n, Callable<T> c) throws Exception {
        String old = System.getProperty("stallscope.threads");
        System.setProperty("stallscope.threads", String.valueOf(n));
        try {
            return c.call();
        } finally {
            if (old == null) System.clearProperty("stallscope.threads");
            else System.setProperty("stallscope.threads", old);
        }
    }

    static Path input(String which) throws Exception {
        return switch (which) {
            case "ap-repeated" -> repeated(Recorder.asyncProfiler("monitor"), 4);
            case "jdk-repeated" -> repeated(Recorder.jdk("monitor"), 3);
            case "jfrsync" -> Recorder.jfrsync("monitor");
            default -> Recorder.agentOps("jfrsync");
        };
    }

    static Path repeated(Path jfr, int copies) throws Exception {
        Path out = jfr.resolveSibling(jfr.getFileName() + ".x" + copies + ".jfr");
        ChunkRepeater.main(new String[] {jfr.toString(), out.toString(), String.valueOf(copies * Files.size(jfr))});
        return out;
    }

    record Report(String out, String json) {
    }

    static Report report(Path jfr, int threads) throws Exception {
        Path json = jfr.resolveSibling(jfr.getFileName() + ".t" + threads + ".json");
        return withThreads(threads, () -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int code = Main.run(new String[] {"report", jfr.toString(), "--json", json.toString()},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            assertThat(code).isZero();
            return new Report(out.toString(StandardCharsets.UTF_8), Files.readString(json));
        });
    }

    static Recording read(Path jfr, int threads) throws Exception {
        return withThreads(threads, () -> {
            Recording rec = new Recording();
            JfrFileReader.read(jfr, rec, null);
            return rec;
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"ap-repeated", "jdk-repeated", "jfrsync", "agent-ops"})
    void oneThreadAndThreeGiveTheSameRecordingAndReports(String which) throws Exception {
        Path jfr = input(which);
        Recording one = read(jfr, 1);
        Recording three = read(jfr, 3);
        assertThat(one.files.get(0).chunks).isGreaterThan(1);
        assertThat(three.threads).isEqualTo(one.threads);
        assertThat(three.stacks.size()).isEqualTo(one.stacks.size());
        for (int i = 0; i < one.stacks.size(); i++) assertThat(three.stacks.frames(i)).isEqualTo(one.stacks.frames(i));
        assertThat(three.files.get(0).eventCounts).isEqualTo(one.files.get(0).eventCounts);
        assertThat(three.locks).isEqualTo(one.locks);
        assertThat(three.io).isEqualTo(one.io);
        assertThat(three.spans).isEqualTo(one.spans);
        one.samples.sort();
        three.samples.sort();
        assertThat(three.samples.size()).isEqualTo(one.samples.size());
        for (int t = 0; t < one.threads.size(); t++) {
            Samples.Lane a = one.samples.lane(t);
            Samples.Lane b = three.samples.lane(t);
            assertThat(b.size()).isEqualTo(a.size());
            for (int i = 0; i < a.size(); i++) {
                assertThat(b.time(i)).isEqualTo(a.time(i));
                assertThat(b.stack(i)).isEqualTo(a.stack(i));
                assertThat(b.state(i)).isEqualTo(a.state(i));
                assertThat(b.weight(i)).isEqualTo(a.weight(i));
            }
        }

        Report r1 = report(jfr, 1);
        Report r3 = report(jfr, 3);
        assertThat(r3.out()).isEqualTo(r1.out());
        assertThat(r3.json()).isEqualTo(r1.json());
        assertThat(r1.out()).contains("Contended locks (from lock events)");
    }
}
