package io.stallscope.it.demo;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.ProducerPerfResult;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The main job on the embedded default: a local broker from Maven Central jars with the agent, a
 * produce load that rolls segments, a consumer that reads it all back, and what the agent measured,
 * per op and thread role. Usage: DemoMain AGENT_JAR [--version 3.9.2] [--records 200000]
 */
public final class DemoMain {
    private static final String TOPIC = "stallscope-demo";

    private DemoMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].startsWith("--help")) {
            System.out.println("usage: DemoMain AGENT_JAR [--version 3.9.2] [--records 200000] [--record-size 1024]");
            System.exit(args.length == 0 ? 2 : 0);
        }
        Path agent = Path.of(args[0]);
        String version = "3.9.2";
        long records = 200_000;
        int size = 1024;
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--version" -> version = args[i + 1];
                case "--records" -> records = Long.parseLong(args[i + 1]);
                case "--record-size" -> size = Integer.parseInt(args[i + 1]);
                default -> {
                    System.err.println("demo: unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        int port = FreePorts.next();
        BrokerSpec spec = BrokerSpec.builder(KafkaVersion.of(version)).name("demo")
            .javaAgent(agent, "prometheus=127.0.0.1:" + port + ",slow.threshold=50ms").build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            System.out.println("demo: starting Kafka " + version + " on " + "127.0.0.1 with the agent ...");
            broker.start();
            System.out.println("demo: broker " + broker.bootstrapServers() + " up in " + broker.lastStartDuration().toMillis()
                + " ms; agent metrics on http://127.0.0.1:" + port + "/metrics");
            Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                .filter(l -> l.contains("Stallscope ") && l.contains("active ("))
                .forEach(l -> System.out.println("demo: agent says: " + l.substring(l.indexOf("Stallscope "))));
            KafkaClients.createTopic(broker, TOPIC, 3, KafkaClients.SMALL_SEGMENTS);
            System.out.println("demo: producing " + records + " records of " + size + " bytes (acks=all, 1 MiB segments) ...");
            ProducerPerfResult perf = KafkaClients.producerPerformance(broker, TOPIC, records, size, -1, Map.of(),
                Duration.ofMinutes(5));
            System.out.println("demo: " + perf);
            long read = KafkaClients.consumeAll(broker, TOPIC, true, Duration.ofMinutes(3));
            System.out.println("demo: consumed " + read + " records from the beginning");
            System.out.println();
            System.out.println("What the agent measured (from its Prometheus endpoint):");
            System.out.print(OpTable.format(OpTable.parse(scrape(port))));
            System.out.println();
            System.out.println("demo: broker log with the agent's lines: " + broker.logFile());
            System.out.println("demo: work directory: " + broker.workDir());
        }
    }

    private static String scrape(int port) throws IOException {
        try (InputStream in = URI.create("http://127.0.0.1:" + port + "/metrics").toURL().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
