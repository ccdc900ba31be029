package io.stallscope.it.bench;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.LocalTieredStorage;
import io.stallscope.it.broker.ProducerPerfResult;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;

/**
 * End-to-end A/B: Kafka's own ProducerPerformance against a fresh local broker without the agent (A)
 * and with it (B, Prometheus endpoint on, as an operator runs it), alternating A and B each round so
 * that drift on the machine hits both alike (A-B in odd rounds, B-A in even ones). Prints each run and the medians.
 * Usage: AgentOverheadBench AGENT_JAR [--version 3.9.2] [--rounds 3] [--records 1000000] [--record-size 1024]
 * [--throughput -1] (--help). With -1 the producer saturates the machine: that run measures throughput, and its
 * latencies are the producer's own queueing. A fixed rate below saturation measures latency.
 * {@code --a-options OPTS} runs A with the agent too (e.g. "" for plain agent) and {@code --b-options OPTS}
 * adds options to B; {@code --c-options OPTS} adds a third arm, C, with the agent and those options, alternated with the
 * others (A-B-C, then C-B-A). {@code --a-options "" --b-options profile=on} measures what profile=on costs over the
 * agent alone. {@code --workload consume} measures the fetch path instead: the records are produced first (not
 * measured), then one consumer in this JVM reads them all from offset 0 at full speed, 64 KiB a fetch, so that every
 * fetch makes a lookup in the offset index; it prints records/s of that read and the broker's CPU during it.
 * {@code --tiered} makes the topic tiered (LocalTieredStorage; Kafka 3.6+): the copy path runs beside the producer.
 */
@Command(name = "bench-agent-overhead",
    description = "A/B: ProducerPerformance against a fresh local broker without (A) and with (B) the agent.")
public final class AgentOverheadBench implements Callable<Integer> {
    // not mixinStandardHelpOptions: its --version would clash with the Kafka version option
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    private boolean help;
    @Parameters(index = "0", paramLabel = "AGENT_JAR", description = "the shaded agent jar")
    private Path agent;
    @Option(names = "--version", description = "Kafka version (default ${DEFAULT-VALUE})")
    private String version = "3.9.2";
    @Option(names = "--rounds", description = "A/B rounds (default ${DEFAULT-VALUE})")
    private int rounds = 3;
    @Option(names = "--records", description = "records per run (default ${DEFAULT-VALUE})")
    private long records = 1_000_000;
    @Option(names = "--record-size", description = "bytes per record (default ${DEFAULT-VALUE})")
    private int size = 1024;
    @Option(names = "--throughput", description = "records/s, -1 for full speed (default ${DEFAULT-VALUE})")
    private int throughput = -1;
    @Option(names = "--a-options", description = "run A with the agent too, with these options (default: A without the agent)")
    private String aOptions; // null: A runs without the agent
    @Option(names = "--b-options", description = "B's agent options (default: none)")
    private String bOptions = "";
    @Option(names = "--c-options", description = "a third arm, C, with the agent and these options (default: none),"
        + " e.g. --b-options \"\" --c-options safepoint.timing=jfr: no agent, the agent, the agent with JFR's stream")
    private String cOptions; // null: two arms
    @Option(names = "--broker-jvm-arg", description = "an option for both arms' broker JVMs, e.g. an async-profiler"
        + " -agentpath (repeatable)")
    private List<String> brokerJvmArgs = new ArrayList<>();
    @Option(names = "--workload", description = "produce (ProducerPerformance) or consume (a consumer from offset 0)"
        + " (default ${DEFAULT-VALUE})")
    private String workload = "produce";
    @Option(names = "--tiered", description = "a tiered topic: Kafka's own LocalTieredStorage in a directory beside the"
        + " broker's, its 1 MiB segments copied to it (and deleted locally a second later) while the producer runs; 3.6+")
    private boolean tiered;

    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new AgentOverheadBench());
        // a mistyped option is one line and exit 2, not a stack trace, and never a 5-minute run with defaults
        cli.setParameterExceptionHandler((e, a) -> {
            System.err.println("bench-agent-overhead: " + e.getMessage() + " (--help for usage)");
            return 2;
        });
        System.exit(cli.execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!workload.equals("produce") && !workload.equals("consume")) {
            System.err.println("bench-agent-overhead: --workload is produce or consume, not " + workload);
            return 2;
        }
        JVM_ARGS.addAll(brokerJvmArgs);
        TIERED[0] = tiered;
        // each arm: its label, its agent options (null: no agent), its runs and broker CPU seconds
        List<String> labels = new ArrayList<>(List.of("A", "B"));
        List<String> options = new ArrayList<>(Arrays.asList(aOptions, bOptions));
        if (cOptions != null) {
            labels.add("C");
            options.add(cOptions);
        }
        List<List<ProducerPerfResult>> runs = new ArrayList<>();
        List<List<Double>> cpu = new ArrayList<>();
        for (int i = 0; i < labels.size(); i++) {
            runs.add(new ArrayList<>());
            cpu.add(new ArrayList<>());
        }
        for (int round = 1; round <= rounds; round++) {
            // A-B(-C), then (C-)B-A: a machine that drifts faster or slower over the run favours no arm
            for (int k = 0; k < labels.size(); k++) {
                int i = round % 2 == 1 ? k : labels.size() - 1 - k;
                String opts = options.get(i);
                ProducerPerfResult r = run(version, opts == null ? null : agent, opts, records, size, throughput, workload);
                runs.get(i).add(r);
                cpu.get(i).add(LAST_BROKER_CPU[0]);
                System.out.println("round " + round + " " + labels.get(i) + (opts == null ? " (no agent):   "
                    : " (agent " + opts + "): ") + r
                    + String.format(Locale.ROOT, ", broker CPU %.2f s, of it JFR and safepoint-line threads %.2f s",
                        LAST_BROKER_CPU[0], LAST_SAFEPOINT_THREADS_CPU[0]));
            }
        }
        System.out.printf(Locale.ROOT, "Kafka %s, %d rounds of %d records x %d bytes at %s, acks=all, 1 MiB segments%s:%n",
            version, rounds, records, size, throughput < 0 ? "full speed" : throughput + " records/s" + (tiered
                ? ", a tiered topic (LocalTieredStorage, segments copied while it runs)" : ""),
            workload.equals("consume") ? ", read back by one consumer at full speed (64 KiB fetches)" : "");
        for (int i = 1; i < labels.size(); i++) {
            String vs = labels.get(i) + "/A";
            System.out.println(" " + labels.get(i) + " against A:");
            row("records/s", vs, runs.get(0), runs.get(i), ProducerPerfResult::recordsPerSec);
            if (workload.equals("produce")) { // a read has no per-record latency to report
                row("p50 ms", vs, runs.get(0), runs.get(i), r -> r.p50Ms());
                row("p99 ms", vs, runs.get(0), runs.get(i), r -> r.p99Ms());
                row("p99.9 ms", vs, runs.get(0), runs.get(i), r -> r.p999Ms());
                row("max ms", vs, runs.get(0), runs.get(i), r -> r.maxLatencyMs());
            }
            double ca = median(cpu.get(0));
            double cb = median(cpu.get(i));
            System.out.printf(Locale.ROOT, "  %-10s median A %10.2f   %s %10.2f   %s %.3f   (A %s, %s %s)%n", "broker CPU s",
                ca, labels.get(i), cb, vs, cb / ca, cpu.get(0), labels.get(i), cpu.get(i));
        }
        return 0;
    }

    private static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(d -> d).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** --tiered, for the static run(). */
    private static final boolean[] TIERED = new boolean[1];

    /** --broker-jvm-arg, for the static run(). */
    private static final List<String> JVM_ARGS = new ArrayList<>();

    /** The broker's CPU seconds (user + system) during the last producer run, from /proc. */
    private static final double[] LAST_BROKER_CPU = new double[1];

    /**
     * The CPU seconds of the broker's JFR threads and the agent's safepoint thread during the last run ("JFR Recorder
     * Thread", "JFR Periodic Tasks", the event stream's, "stallscope-safepoint-lines": the comm names, cut at 15
     * characters, begin "JFR" or "stallscope-safe"): what safepoint.timing runs beside the broker's own threads.
     */
    private static final double[] LAST_SAFEPOINT_THREADS_CPU = new double[1];

    private static double safepointThreadsCpu(long pid) {
        double sum = 0;
        try (java.util.stream.Stream<Path> tasks = java.nio.file.Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = java.nio.file.Files.readString(task.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (comm.startsWith("JFR") || comm.startsWith("stallscope-safe")) {
                        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        sum += (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
                    }
                } catch (java.io.IOException | RuntimeException e) {
                    // a thread that ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            return Double.NaN;
        }
        return sum;
    }

    private static double cpuSeconds(long pid) {
        try {
            String stat = java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // utime, stime in clock ticks (USER_HZ 100)
        } catch (Exception e) {
            return Double.NaN;
        }
    }

    private static ProducerPerfResult run(String version, Path agent, String options, long records, int size,
                                          int throughput, String workload) {
        BrokerSpec.Builder spec = BrokerSpec.builder(KafkaVersion.of(version)).name(agent == null ? "bench-a" : "bench-b");
        JVM_ARGS.forEach(spec::jvmArg);
        if (agent != null) {
            spec.javaAgent(agent, "prometheus=127.0.0.1:" + FreePorts.next()
                + (options == null || options.isEmpty() ? "" : "," + options));
        }
        Path remote = HarnessDirs.target().resolve("tiered").resolve("bench-" + ProcessHandle.current().pid());
        if (TIERED[0]) {
            spec.serverProperties(LocalTieredStorage.serverProperties(KafkaVersion.of(version), remote));
        }
        Path[] dataDir = new Path[1];
        try (KafkaBroker broker = new LocalKafkaBroker(spec.build())) {
            dataDir[0] = broker.dataDir();
            if (TIERED[0]) {
                java.nio.file.Files.createDirectories(remote);
            }
            broker.start();
            KafkaClients.createTopic(broker, "bench", 1, TIERED[0] ? LocalTieredStorage.topicConfigs()
                : KafkaClients.SMALL_SEGMENTS);
            double cpu0 = cpuSeconds(broker.pid());
            double jfr0 = safepointThreadsCpu(broker.pid());
            ProducerPerfResult r = KafkaClients.producerPerformance(broker, "bench", records, size, throughput, Map.of(),
                Duration.ofMinutes(10));
            if (workload.equals("consume")) {
                cpu0 = cpuSeconds(broker.pid());
                jfr0 = safepointThreadsCpu(broker.pid());
                r = FullSpeedRead.from(broker, "bench", records);
            }
            LAST_BROKER_CPU[0] = cpuSeconds(broker.pid()) - cpu0;
            LAST_SAFEPOINT_THREADS_CPU[0] = safepointThreadsCpu(broker.pid()) - jfr0;
            return r;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            // a run leaves up to a GiB of records: its logs stay, its data goes (24 runs filled this machine's disk)
            HarnessDirs.deleteQuietly(dataDir[0]);
            HarnessDirs.deleteQuietly(remote);
        }
    }

    /** @param vs "B/A" or "C/A" */
    private static void row(String name, String vs, List<ProducerPerfResult> a, List<ProducerPerfResult> b,
                            ToDoubleFunction<ProducerPerfResult> metric) {
        double ma = median(a, metric);
        double mb = median(b, metric);
        String other = vs.substring(0, 1);
        System.out.printf(Locale.ROOT, "  %-10s median A %10.1f   %s %10.1f   %s %.3f   (A %s, %s %s)%n", name, ma, other,
            mb, vs, mb / ma, values(a, metric), other, values(b, metric));
    }

    private static double median(List<ProducerPerfResult> runs, ToDoubleFunction<ProducerPerfResult> metric) {
        double[] v = runs.stream().mapToDouble(metric).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String values(List<ProducerPerfResult> runs, ToDoubleFunction<ProducerPerfResult> metric) {
        return Arrays.toString(runs.stream().mapToDouble(metric).map(d -> Math.round(d * 10) / 10.0).toArray());
    }
}
