package io.stallscope.it.broker;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a real broker from the shell and keeps it running until this JVM is killed (SIGTERM/SIGINT
 * stop the broker gracefully; the harness's shutdown hook reaps it in any case).
 *
 * <pre>
 * start --version 3.9.2 [--javaagent PATH[=opts]]... [--jvm-arg ARG]... [--kafka-opts "ARGS"]
 *       [--prop key=value]... [--env KEY=VALUE]... [--workdir DIR] [--name NAME] [--node-id N]
 *       [--java-home DIR|newest] [--heap 512m] [--ssl]
 * classpath --version 3.9.2      prints the broker classpath (resolving and caching it)
 * versions                        prints the supported versions
 * </pre>
 *
 * {@code start} prints {@code bootstrap.servers=...}, {@code pid=...}, {@code log=...}, {@code workdir=...}
 * and then {@code ready}, one per line.
 */
public final class LocalBrokerMain {

    private LocalBrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage("missing command");
        }
        List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        switch (args[0]) {
            case "start" -> start(rest);
            case "classpath" -> System.out.println(KafkaClasspath.asString(KafkaVersion.of(option(rest, "--version"))));
            case "versions" -> KafkaVersions.SUPPORTED.forEach(System.out::println);
            default -> usage("unknown command " + args[0]);
        }
    }

    private static void start(List<String> args) throws InterruptedException {
        BrokerSpec.Builder b = BrokerSpec.builder(option(args, "--version"));
        String kafkaOptsEnv = System.getenv("KAFKA_OPTS");
        if (kafkaOptsEnv != null && !kafkaOptsEnv.isBlank()) {
            b.kafkaOpts(kafkaOptsEnv);
        }
        for (Iterator<String> it = args.iterator(); it.hasNext(); ) {
            String opt = it.next();
            if (opt.equals("--ssl")) {
                b.withSslListener();
                continue;
            }
            if (!it.hasNext()) {
                usage("missing value for " + opt);
            }
            String v = it.next();
            switch (opt) {
                case "--version" -> { }
                case "--javaagent" -> b.jvmArg("-javaagent:" + v);
                case "--jvm-arg" -> b.jvmArg(v);
                case "--kafka-opts" -> b.kafkaOpts(v);
                case "--prop" -> b.serverProperty(key(v), value(v));
                case "--env" -> b.env(key(v), value(v));
                case "--workdir" -> b.workDir(Path.of(v));
                case "--name" -> b.name(v);
                case "--node-id" -> b.nodeId(Integer.parseInt(v));
                case "--java-home" -> b.javaHome(v.equals("newest") ? KafkaJdks.newest() : Path.of(v));
                case "--heap" -> b.heap(v);
                default -> usage("unknown option " + opt);
            }
        }
        LocalKafkaBroker broker = new LocalKafkaBroker(b.build());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.close();
            stopped.countDown();
        }, "stallscope-broker-main-stop"));
        broker.start();
        System.out.println("bootstrap.servers=" + broker.bootstrapServers());
        if (broker.spec().sslListener()) {
            System.out.println("ssl.bootstrap.servers=" + broker.sslBootstrapServers());
            System.out.println("ssl.truststore=" + broker.sslClientProperties().get("ssl.truststore.location"));
        }
        System.out.println("pid=" + broker.pid());
        System.out.println("log=" + broker.logFile());
        System.out.println("workdir=" + broker.workDir());
        System.out.println("startup.ms=" + broker.lastStartDuration().toMillis());
        System.out.println("ready");
        System.out.flush();
        while (broker.isRunning()) {
            Thread.sleep(500);
        }
        System.err.println("broker exited: " + broker.exitCode() + "; see " + broker.logFile());
        System.exit(1);
    }

    private static String key(String kv) {
        int i = kv.indexOf('=');
        if (i <= 0) usage("expected key=value: " + kv);
        return kv.substring(0, i);
    }

    private static String value(String kv) {
        return kv.substring(kv.indexOf('=') + 1);
    }

    private static String option(List<String> args, String name) {
        int i = args.indexOf(name);
        if (i < 0 || i + 1 >= args.size()) usage(name + " is required");
        return args.get(i + 1);
    }

    private static void usage(String problem) {
        System.err.println("error: " + problem);
        System.err.println("usage: LocalBrokerMain start --version V [--javaagent PATH[=opts]]... [--jvm-arg A]..."
                + " [--kafka-opts \"A B\"] [--prop k=v]... [--env K=V]... [--workdir DIR] [--name N] [--node-id N]"
                + " [--java-home DIR|newest] [--heap 512m] [--ssl]");
        System.err.println("       LocalBrokerMain classpath --version V");
        System.err.println("       LocalBrokerMain versions");
        System.exit(2);
    }
}
