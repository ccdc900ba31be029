package io.stallscope.it.agent;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.KafkaClasspath;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LocalKafkaBroker;
import io.stallscope.it.broker.PrometheusScrape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The agent never takes a broker down: bad options, a taken port; and it stays out of Kafka's tools. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AgentSafetyIT {
    private static final KafkaVersion VERSION = KafkaVersion.of("3.9.2");

    @Test
    void aMistypedOptionIsOneErrorLineAndTheBrokerRunsWithoutTheAgent() throws Exception {
        BrokerSpec spec = BrokerSpec.builder(VERSION).name("agent-bad-option")
            .javaAgent(AgentJar.path(), "promethus=9405").build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, "t", 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, "t", 100, 100)).isEqualTo(100);
            List<String> agentLines = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                .filter(AgentLogLines::isAgentLine).toList();
            assertThat(agentLines).hasSize(1);
            assertThat(agentLines.get(0)).contains("ERROR")
                .contains("invalid agent options: unknown option 'promethus' (did you mean 'prometheus'?)")
                .contains("the agent is inactive and the broker starts without it");
        }
    }

    @Test
    void strictRefusesToStartOnABadOption() {
        BrokerSpec spec = BrokerSpec.builder(VERSION).name("agent-strict").startTimeout(Duration.ofSeconds(40))
            .javaAgent(AgentJar.path(), "promethus=9405,strict=true").build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            assertThatThrownBy(broker::start).isInstanceOf(RuntimeException.class);
            assertThat(broker.isRunning()).isFalse();
            String out = readQuietly(broker);
            assertThat(out).contains("unknown option 'promethus'").contains("strict=true: refusing to start the JVM")
                .doesNotContain("FATAL ERROR").doesNotContain("\tat ");
            // a plain refusal, not JPLIS's abort (134) that reads like a crash
            assertThat(((LocalKafkaBroker) broker).exitCode()).hasValue(2);
        }
    }

    /**
     * Also: a STALLSCOPE_* variable that is no option (Kubernetes sets STALLSCOPE_SERVICE_HOST in every pod of a
     * namespace with a Service named stallscope) is named in the start-up line and changes nothing, strict=true too.
     */
    @Test
    void aTakenPortOrAStrayStallscopeVariableLeavesTheBrokerRunningAndSaysSo() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            BrokerSpec spec = BrokerSpec.builder(VERSION).name("agent-taken-port")
                .env("STALLSCOPE_SERVICE_HOST", "10.0.0.1").env("STALLSCOPE_SERVICE_PORT", "9405")
                .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + port + ",strict=true").build();
            try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
                broker.start();
                KafkaClients.createTopic(broker, "t", 1, KafkaClients.SMALL_SEGMENTS);
                assertThat(KafkaClients.produce(broker, "t", 100, 100)).isEqualTo(100);
                String startup = Files.readString(broker.logFile(), StandardCharsets.ISO_8859_1).lines()
                    .filter(l -> l.contains("Stallscope ") && l.contains("active (premain)")).findFirst().orElseThrow();
                assertThat(startup).contains("prometheus endpoint 127.0.0.1:" + port + " not served")
                    .contains("instrumented " + VERSION.agentPoints() + " of " + KafkaVersion.AGENT_POINTS_ALL + " points")
                    .contains("ignored environment STALLSCOPE_SERVICE_HOST: not an option")
                    .contains("ignored environment STALLSCOPE_SERVICE_PORT: not an option").doesNotContain("10.0.0.1");
            }
        }
    }

    /**
     * The metrics endpoint inside a broker limited to 4,096 descriptors: 3,000 clients that each send one byte and
     * wait (with the JDK's HttpServer the endpoint held every one of them and stopped answering scrapes) leave the
     * broker's descriptor count within 200 of where it was, a scrape answers within 5 s, and a roll, which opens
     * files, still succeeds.
     */
    @Test
    void stalledClientsOfTheEndpointCannotSpendTheBrokersDescriptors() throws Exception {
        int port = FreePorts.next();
        BrokerSpec spec = BrokerSpec.builder(VERSION).name("agent-endpoint-flood")
            .launchWrapper(List.of("prlimit", "--nofile=4096:4096"))
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + port).build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, "t", 1, KafkaClients.SMALL_SEGMENTS);
            Path fds = Path.of("/proc", Long.toString(broker.pid()), "fd");
            long before = descriptors(fds);
            List<Socket> stalled = new ArrayList<>();
            try {
                for (int i = 0; i < 3000; i++) {
                    Socket s = new Socket();
                    stalled.add(s);
                    try {
                        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                        s.getOutputStream().write('G');
                    } catch (IOException e) {
                        // closed by the endpoint at once: as intended
                    }
                }
                assertThat(descriptors(fds) - before).as("the broker's descriptors with 3,000 stalled clients")
                    .isLessThanOrEqualTo(200);
                long t0 = System.nanoTime();
                PrometheusScrape scrape = PrometheusScrape.scrape(port);
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("a scrape among them").isLessThan(Duration.ofSeconds(5));
                assertThat(scrape.text()).contains("stallscope_agent_info");
                assertThat(KafkaClients.produce(broker, "t", 2500, 1024)).as("2.5 MB into 1 MiB segments").isEqualTo(2500);
                try (var files = Files.list(broker.dataDir().resolve("t-0"))) {
                    assertThat(files.filter(f -> f.toString().endsWith(".log")).count()).as("segments rolled").isGreaterThanOrEqualTo(2);
                }
            } finally {
                for (Socket s : stalled) {
                    s.close();
                }
            }
        }
    }

    private static long descriptors(Path fds) throws IOException {
        try (var list = Files.list(fds)) {
            return list.count();
        }
    }

    @Test
    void kafkasCommandLineToolsGetKafkaOptsButTheAgentStaysSilent() throws Exception {
        BrokerSpec spec = BrokerSpec.builder(VERSION).name("agent-tools").build();
        try (KafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            KafkaClients.createTopic(broker, "t", 1, KafkaClients.SMALL_SEGMENTS);
            int port = FreePorts.next();
            // as kafka-producer-perf-test.sh would run with KAFKA_OPTS="-javaagent:..." exported for the broker
            Process tool = new ProcessBuilder(KafkaJdks.defaultJdk().resolve("bin/java").toString(),
                "-javaagent:" + AgentJar.path() + "=prometheus=127.0.0.1:" + port,
                "-cp", KafkaClasspath.asString(VERSION), "org.apache.kafka.tools.ProducerPerformance",
                "--topic", "t", "--num-records", "200", "--record-size", "100", "--throughput", "-1",
                "--producer-props", "bootstrap.servers=" + broker.bootstrapServers())
                .redirectErrorStream(true).start();
            String output = new String(tool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(tool.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(tool.exitValue()).as(output).isZero();
            assertThat(output).contains("200 records sent").doesNotContainIgnoringCase("stallscope");
            assertThat(io.stallscope.it.broker.FreePorts.isListening(port)).isFalse();
        }
    }

    private static String readQuietly(KafkaBroker broker) {
        StringBuilder sb = new StringBuilder();
        for (var file : List.of(broker.stdoutFile(), broker.logFile())) {
            try {
                sb.append(Files.readString(file, StandardCharsets.ISO_8859_1));
            } catch (Exception ignored) {
                // a broker that never started may not have written its log
            }
        }
        return sb.toString();
    }
}
