package io.stallscope.it.demo;

import io.stallscope.it.broker.HarnessDirs;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.KafkaVersions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code scripts/demo}: a stall found and fixed, the way an operator meets it. See {@link DemoRun} for
 * the story; this class only reads the command line.
 */
@Command(name = "scripts/demo", sortOptions = false, usageHelpWidth = 110,
    description = {
        "A stall found and fixed: a local Kafka broker (child JVM on 127.0.0.1, jars from Maven Central)",
        "with the Stallscope agent on a slow disk (real as root, else simulated); steady produce load, then a late consumer and a",
        "stream of segment rolls, with a live table of the agent's op latencies; the capture of the stall and",
        "the analyzer's report on it; the same load with the mitigations on; the two side by side.",
        "With --bootstrap it drives load at your own broker instead (and injects nothing there).", ""})
public final class DemoMain implements Callable<Integer> {

    @Option(names = "--version", paramLabel = "KAFKA", defaultValue = "3.6.2",
        description = "Kafka version of the local broker (default ${DEFAULT-VALUE}: old enough for both mitigations,"
            + " roll-flush matters on 2.8-3.6 only); the versions supported are checked, and listed when one is not")
    String version;

    @Option(names = "--bootstrap", paramLabel = "HOST:PORT",
        description = "your own broker instead of a local one: the demo creates two topics of its own there (1 MiB"
            + " segments), drives load, shows the table, deletes the topics; it injects nothing")
    String bootstrap;

    @Option(names = "--prometheus", paramLabel = "URL",
        description = "with --bootstrap: your agent's endpoint, e.g. http://127.0.0.1:9405/metrics")
    String prometheus;

    @Option(names = "--pid", paramLabel = "PID",
        description = "with --bootstrap, a broker on this machine: take an on-demand capture of it during the stall"
            + " (java -jar stallscope-agent.jar capture PID)")
    Long pid;

    @Option(names = "--out", paramLabel = "DIR",
        description = "where to write everything (default integration-tests/target/demo/<time>)")
    Path out;

    @Option(names = "--disk", paramLabel = "auto|real|simulated", defaultValue = "auto",
        description = "the local broker's slow disk: real (XFS on a loop device throttled by the kernel's block layer;"
            + " needs root and xfsprogs), simulated (the LD_PRELOAD shim), or auto (default: real when it can be made)")
    String disk;

    @Option(names = "--short", description = "shorter phases and a smaller backlog (the test's mode)")
    boolean shortPlan;

    @Option(names = "--ansi", paramLabel = "auto|always|never", defaultValue = "auto",
        description = "redraw the live table in place (always: a terminal) or print snapshots of it (never)")
    String ansi;

    @Option(names = "--columns", paramLabel = "N", defaultValue = "120",
        description = "the terminal's width, for redrawing in place (scripts/demo passes it)")
    int columns;

    @Option(names = "--agent", paramLabel = "JAR", defaultValue = "agent/target/stallscope-agent.jar",
        description = "the agent jar (default ${DEFAULT-VALUE})")
    Path agentJar;

    @Option(names = "--analyzer", paramLabel = "PATH", defaultValue = "analyzer/bin/analyzer",
        description = "the analyzer's launcher (default ${DEFAULT-VALUE})")
    Path analyzer;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    boolean help;

    public static void main(String[] args) {
        // kafka-clients asks for an slf4j binding; the demo has none on purpose (client chatter would
        // bury the table), so drop slf4j's three-line notice about that
        System.setErr(new SkipLines(System.err, "SLF4J: "));
        CommandLine cl = new CommandLine(new DemoMain());
        cl.setOverwrittenOptionsAllowed(true); // scripts/demo passes --ansi first; the operator's own wins
        cl.setParameterExceptionHandler((e, a) -> {
            System.err.println("demo: " + e.getMessage() + " (scripts/demo --help)");
            return 2;
        });
        cl.setExecutionExceptionHandler((e, c, r) -> {
            System.err.println("demo: failed: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return 1;
        });
        System.exit(cl.execute(args));
    }

    @Override
    public Integer call() throws Exception {
        String problem = problem();
        if (problem != null) {
            System.err.println("demo: " + problem + " (scripts/demo --help)");
            return 2;
        }
        Path dir = (out != null ? out : Path.of("integration-tests", "target", "demo",
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")))).toAbsolutePath();
        Files.createDirectories(dir);
        // the harness finds its native tools (the slow-disk shim) and Kafka classpaths under this target dir
        System.setProperty(HarnessDirs.TARGET_PROPERTY, HarnessDirs.target().toString());
        boolean redraw = switch (ansi) {
            case "always" -> true;
            case "never" -> false;
            default -> System.console() != null;
        };
        LiveView view = new LiveView(System.out, redraw, Duration.ofSeconds(5), columns);
        DemoRun run = new DemoRun(shortPlan ? DemoPlan.SHORT : DemoPlan.FULL, dir, view, agentJar.toAbsolutePath(),
            new AnalyzerStep(analyzer.toAbsolutePath()), bootstrap == null ? DemoDiskKind.choose(disk) : null);
        try {
            return bootstrap != null
                ? run.remote(bootstrap, URI.create(prometheus), pid)
                : run.local(KafkaVersion.of(version));
        } finally {
            run.finished(); // an error ends here too: no "interrupted" from the shutdown hook
        }
    }

    /** A one-line reason the options do not make sense, or null. */
    private String problem() {
        List<String> problems = new ArrayList<>();
        if (!List.of("auto", "real", "simulated").contains(disk)) {
            problems.add("--disk takes auto, real or simulated, not '" + disk + "'");
        }
        if (!List.of("auto", "always", "never").contains(ansi)) {
            problems.add("--ansi takes auto, always or never, not '" + ansi + "'");
        }
        if (bootstrap == null && (prometheus != null || pid != null)) {
            problems.add("--prometheus and --pid go with --bootstrap (your own broker)");
        }
        if (bootstrap != null && prometheus == null) {
            problems.add("--bootstrap needs --prometheus URL: the table comes from the agent on your broker");
        }
        if (prometheus != null) {
            try {
                URI u = URI.create(prometheus);
                if (u.getScheme() == null || !u.getScheme().startsWith("http") || u.getHost() == null) {
                    problems.add("--prometheus wants an http URL, e.g. http://127.0.0.1:9405/metrics, not '" + prometheus + "'");
                }
            } catch (IllegalArgumentException e) {
                problems.add("--prometheus: not a URL: '" + prometheus + "'");
            }
        }
        if (bootstrap == null) {
            try {
                if (!KafkaVersions.SUPPORTED.contains(KafkaVersion.of(version))) {
                    problems.add("Kafka " + version + " is not one the demo can run; supported: " + KafkaVersions.SUPPORTED);
                }
            } catch (IllegalArgumentException e) {
                problems.add("--version: " + e.getMessage());
            }
        }
        if (!Files.isRegularFile(agentJar)) {
            problems.add("no agent jar at " + agentJar.toAbsolutePath() + " (scripts/demo builds it)");
        }
        if ((bootstrap == null || pid != null) && !Files.isExecutable(analyzer)) {
            problems.add("no analyzer launcher at " + analyzer.toAbsolutePath());
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }
}
