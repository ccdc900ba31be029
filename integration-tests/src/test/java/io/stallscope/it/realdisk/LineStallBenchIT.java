package io.stallscope.it.realdisk;

import io.stallscope.it.bench.LoadAverage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Benchmark, not a CI test (-Dstallscope.bench=true; scripts/bench-real-disk-line): {@link LineScenario}
 * on XFS and on ext4, arms alternating in an order rotated every round (-Dstallscope.bench.rounds, default
 * 3; -Dstallscope.bench.arms, default "xfs,ext4"; an arm is
 * FS[+prefetch][+wait=DURATION][+ahead=BYTES][+seg=BYTES][+net=N][+kafka=VERSION][+fast][+blame], wait and ahead
 * being prefetch options, fast the disk without its read limit, blame the agent's slow-op lines from 20 ms and a
 * capture for the analyzer). Per run: produce p99.9 before and during the catch-up, the
 * request handlers' write(2) of 20 ms or more from jdk.FileWrite (count and max), the agent's
 * records_append p99.9 on request handlers, and who the slow appends were said to wait for (issue 41): the agent's
 * lines naming a network thread's transfer_to of the same file, lines naming anyone, the slow lines of any op that
 * name a culprit (the fast-disk control: none), and with blame the analyzer's
 * write-behind-sendfile findings on the capture; then medians per arm. Output: target/bench/line.md.
 */
@EnabledIfSystemProperty(named = "stallscope.bench", matches = "true")
class LineStallBenchIT {
    private static final int ROUNDS = Integer.getInteger("stallscope.bench.rounds", 3);
    private static final List<String> ARMS = List.of(System.getProperty("stallscope.bench.arms", "xfs,ext4").split(","));

    @Test
    @Timeout(value = 120, unit = java.util.concurrent.TimeUnit.MINUTES)
    void xfsAgainstExt4() throws Exception {
        Path dir = Path.of(System.getProperty("stallscope.it.target", "target"), "bench").toAbsolutePath();
        Files.createDirectories(dir);
        Path out = dir.resolve("line.md");
        Files.writeString(out, "LINE's scenario (" + Instant.now() + ", load " + LoadAverage.now() + "): " + ROUNDS + " rounds of "
            + ARMS + "\n\n| round | arm | disk | p99.9 before ms | p99.9 during ms | during/before | handler writes >= 20 ms"
            + " before / during | max ms | agent records_append p99.9 on request handlers ms | network transfer_to p99 ms"
            + " | catch-up s | slow handler appends: naming the same file's transfer_to / anyone / all | slow lines of any op"
            + " naming anyone | analyzer write-behind-sendfile findings |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        List<Run> runs = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            for (int i = 0; i < ARMS.size(); i++) {
                String arm = ARMS.get((i + round - 1) % ARMS.size());
                LineScenario.Result r = LineScenario.run(options(arm), dir.resolve("line-" + round + "-" + arm));
                runs.add(new Run(arm, r));
                List<String> slow = r.slowAppendLines();
                String findings = r.capture() == null ? "-" : Integer.toString(SendfilePairing.analyzerFindings(r).size());
                Files.writeString(out, String.format(Locale.ROOT, "| %d | %s | %s | %.1f | %.1f | %.1f | %d / %d | %.0f | %.1f | %.1f | %.1f"
                        + " | %d / %d / %d | %d | %s |%n",
                    round, arm, r.disk(), r.p999Before(), r.p999During(), r.ratio(), r.slowWritesBefore().size(),
                    r.slowWritesDuring().size(), SlowFileWrites.maxMs(r.slowWritesDuring()), r.appendP999Handlers(),
                    r.networkTransferP99(), r.catchUpSeconds(), SendfilePairing.namingTheSendfile(slow),
                    SendfilePairing.namingAnyone(slow), slow.size(), r.slowLinesNamingAnyone().size(), findings), StandardOpenOption.APPEND);
            }
        }
        StringBuilder medians = new StringBuilder("\n| arm | median during/before (range) | median handler writes >= 20 ms during (range)"
            + " | median max ms | median agent records_append p99.9 ms |\n|---|---|---|---|---|\n");
        for (String arm : ARMS) {
            List<LineScenario.Result> rs = runs.stream().filter(x -> x.arm().equals(arm)).map(Run::result).toList();
            medians.append(String.format(Locale.ROOT, "| %s | %s | %s | %.0f | %.1f |%n", arm, spread(rs, LineScenario.Result::ratio, "%.1f"),
                spread(rs, r -> r.slowWritesDuring().size(), "%.0f"), median(rs, r -> SlowFileWrites.maxMs(r.slowWritesDuring())),
                median(rs, LineScenario.Result::appendP999Handlers)));
        }
        medians.append("\nload at end ").append(LoadAverage.now()).append('\n');
        Files.writeString(out, medians, StandardOpenOption.APPEND);
        System.out.println(Files.readString(out));
    }

    record Run(String arm, LineScenario.Result result) {
    }

    /** "xfs", "ext4+prefetch", "xfs+seg=67108864", "xfs+net=3": the file system, then what differs from the defaults. */
    static LineScenario.Options options(String arm) {
        String[] parts = arm.split("\\+");
        LineScenario.Options o = LineScenario.Options.defaults(FsType.of(parts[0]));
        List<String> agent = new ArrayList<>();
        for (String p : Arrays.asList(parts).subList(1, parts.length)) {
            if (p.equals("prefetch")) {
                agent.add("mitigate=prefetch");
            } else if (p.startsWith("wait=")) {
                agent.add("mitigate.prefetch.max.wait=" + p.substring(5));
            } else if (p.startsWith("ahead=")) {
                agent.add("mitigate.prefetch.ahead.bytes=" + p.substring(6));
            } else if (p.startsWith("seg=")) {
                o = o.withSegmentBytes(Long.parseLong(p.substring(4)));
            } else if (p.startsWith("net=")) {
                o = o.withNetworkThreads(Integer.parseInt(p.substring(4)));
            } else if (p.startsWith("kafka=")) {
                o = o.withKafka(p.substring(6));
            } else if (p.equals("fast")) {
                o = o.unthrottled();
            } else if (p.equals("blame")) {
                agent.add(SendfilePairing.AGENT_OPTIONS);
                o = o.withCapture();
            } else {
                throw new IllegalArgumentException("unknown arm part '" + p + "' in " + arm);
            }
        }
        if (!agent.isEmpty()) {
            o = o.withAgentOptions(String.join(",", agent));
        }
        return o;
    }

    private static double median(List<LineScenario.Result> rs, ToDoubleFunction<LineScenario.Result> f) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return v.length == 0 ? Double.NaN : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String spread(List<LineScenario.Result> rs, ToDoubleFunction<LineScenario.Result> f, String fmt) {
        double[] v = rs.stream().mapToDouble(f).sorted().toArray();
        return String.format(Locale.ROOT, fmt + " (" + fmt + "-" + fmt + ")", median(rs, f), v[0], v[v.length - 1]);
    }
}
