package io.stallscope.analyzer.read;

import io.stallscope.analyzer.Fixtures;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.render.JsonReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Mutates the public recordings (byte flips, truncations, splices) and asserts the reader and the analysis
 * either succeed or fail with a clean {@link JfrFormatException}, and never hang. The normal run does a short
 * deterministic pass; {@code -Pfuzz} runs random seeds for {@code stallscope.fuzz.seconds}.
 */
class ReaderFuzzTest {
    @TempDir
    Path dir;

    @Test
    void deterministicMutationsFailCleanly() throws Exception {
        int cases = fuzz(new Random(20251121L), 240, Long.MAX_VALUE);
        assertThat(cases).isEqualTo(240);
    }

    @Test
    void timedRandomFuzzing() throws Exception {
        long seconds = Long.getLong("stallscope.fuzz.seconds", 0);
        if (seconds <= 0) return; // only under -Pfuzz
        long seed = System.nanoTime();
        System.out.println("fuzz seed " + seed + " for " + seconds + " s");
        int cases = fuzz(new Random(seed), Integer.MAX_VALUE, System.nanoTime() + seconds * 1_000_000_000L);
        System.out.println("fuzz cases " + cases);
        assertThat(cases).isPositive();
    }

    private int fuzz(Random rnd, int maxCases, long deadline) throws Exception {
        List<byte[]> inputs = new ArrayList<>();
        for (Path p : Fixtures.recordings()) inputs.add(Files.readAllBytes(p));
        int n = 0;
        Path file = dir.resolve("fuzz.jfr");
        while (n < maxCases && System.nanoTime() < deadline) {
            byte[] src = inputs.get(rnd.nextInt(inputs.size()));
            byte[] data = mutate(src, rnd);
            Files.write(file, data);
            String what = "case " + n + " (" + data.length + " bytes)";
            assertTimeoutPreemptively(Duration.ofSeconds(20), () -> readAndAnalyze(file, what), what + " hung");
            n++;
        }
        return n;
    }

    private static void readAndAnalyze(Path file, String what) {
        try {
            Recording rec = new Recording();
            JfrFileReader.read(file, rec, null);
            JsonReport.build(Analyzer.analyze(rec, Options.defaults()));
        } catch (JfrFormatException e) {
            assertThat(e.getMessage()).isNotBlank().doesNotContain("\n");
        } catch (IOException e) {
            fail(what + ": unexpected " + e);
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError(what + ": not a clean error", e);
        }
    }

    static byte[] mutate(byte[] src, Random rnd) {
        byte[] d = src.clone();
        switch (rnd.nextInt(5)) {
            case 0: // flip a few bytes anywhere
                for (int i = 0, k = 1 + rnd.nextInt(8); i < k; i++) d[rnd.nextInt(d.length)] ^= (byte) (1 + rnd.nextInt(255));
                return d;
            case 1: // truncate
                return Arrays.copyOf(d, rnd.nextInt(d.length));
            case 2: // damage the metadata or header region, where a flip changes the schema
                for (int i = 0, k = 1 + rnd.nextInt(4); i < k; i++) d[rnd.nextInt(Math.min(d.length, 9000))] = (byte) rnd.nextInt(256);
                return d;
            case 3: // damage the tail, where async-profiler keeps its constant pools
                for (int i = 0, k = 1 + rnd.nextInt(8); i < k; i++) d[d.length - 1 - rnd.nextInt(Math.min(d.length, 4000))] ^= (byte) 0x5a;
                return d;
            default: // splice: a run of random bytes over the middle
                int at = rnd.nextInt(d.length);
                for (int i = at; i < Math.min(d.length, at + 1 + rnd.nextInt(64)); i++) d[i] = (byte) rnd.nextInt(256);
                return d;
        }
    }
}
