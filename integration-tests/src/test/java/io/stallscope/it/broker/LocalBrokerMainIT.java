package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shell entry point as scripts use it: a separate JVM from target/classes plus
 * target/runtime-classpath.txt starts a broker, prints where it is, serves clients, and takes the
 * broker down with it on SIGTERM (through the harness's shutdown hook).
 */
class LocalBrokerMainIT {

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void startsServesAndStopsWithItsJvm() throws Exception {
        Path target = HarnessDirs.target();
        String runtime = Files.readString(target.resolve("runtime-classpath.txt")).trim();
        List<String> cmd = List.of(KafkaJdks.defaultJdk().resolve("bin/java").toString(),
                "-D" + HarnessDirs.TARGET_PROPERTY + "=" + target,
                "-cp", target.resolve("classes") + java.io.File.pathSeparator + runtime,
                "io.stallscope.it.broker.LocalBrokerMain", "start", "--version", "3.9.2", "--name", "main",
                "--jvm-arg", "-Dstallscope.it.main=1", "--prop", "log.segment.bytes=1048576");
        Process main = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        long brokerPid = -1;
        try {
            Map<String, String> printed = new HashMap<>();
            BufferedReader out = new BufferedReader(new InputStreamReader(main.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null && !line.equals("ready"); ) {
                int eq = line.indexOf('=');
                if (eq > 0) printed.put(line.substring(0, eq), line.substring(eq + 1));
            }
            assertThat(printed).containsKeys("bootstrap.servers", "pid", "log", "workdir");
            assertThat(printed.get("bootstrap.servers")).matches("127\\.0\\.0\\.1:\\d+");
            brokerPid = Long.parseLong(printed.get("pid"));
            assertThat(BrokerTestSupport.commandLine(brokerPid)).contains("-Dstallscope.it.main=1").contains("kafka.Kafka");
            assertThat(Path.of(printed.get("workdir"))).startsWith(target.resolve("brokers"));

            Map<String, Object> producer = new HashMap<>();
            producer.put("bootstrap.servers", printed.get("bootstrap.servers"));
            producer.put("acks", "all");
            producer.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
            producer.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
            assertThat(KafkaClients.produce(producer, "auto-created", 100, 100)).isEqualTo(100); // auto.create.topics.enable
            Map<String, Object> consumer = new HashMap<>();
            consumer.put("bootstrap.servers", printed.get("bootstrap.servers"));
            consumer.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
            consumer.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
            assertThat(KafkaClients.consumeAll(consumer, "auto-created", true, Duration.ofSeconds(30))).isEqualTo(100);

            main.destroy(); // SIGTERM
            assertThat(main.waitFor(60, TimeUnit.SECONDS)).as("main exits on SIGTERM").isTrue();
            Optional<ProcessHandle> broker = ProcessHandle.of(brokerPid);
            assertThat(broker.map(ProcessHandle::isAlive)).as("broker pid %d after main exited", brokerPid)
                    .isNotEqualTo(Optional.of(true));
            assertThat(BrokerTestSupport.read(Path.of(printed.get("log")))).containsIgnoringCase("shut down completed");
        } finally {
            main.destroyForcibly();
            if (brokerPid > 0) ProcessHandle.of(brokerPid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }
}
