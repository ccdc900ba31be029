package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the harness promises beyond one version's happy path: pass-through, crash/restart, cleanup. The TLS
 * listener and the newest JDK are checked on AgentAtStartIT's brokers ({@link HarnessChecks}), which start
 * with a TLS listener, on those versions and that JDK, anyway.
 */
class BrokerLifecycleIT {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void jvmArgsEnvAndServerPropertiesReachTheBroker() throws Exception {
        BrokerSpec spec = BrokerSpec.builder(KafkaVersions.V3_9_2)
                .name("passthrough")
                .jvmArg("-Dstallscope.it.marker=foo-bar")
                .kafkaOpts("-Dstallscope.it.opt1=a '-Dstallscope.it.opt2=b c'")
                .env("STALLSCOPE_IT_ENV", "hello-env")
                .serverProperty("log.segment.bytes", "2097152")
                .heap("384m")
                .build();
        try (LocalKafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            long pid = broker.pid();
            List<String> args = broker.commandLine();
            assertThat(args).contains("-Dstallscope.it.marker=foo-bar", "-Dstallscope.it.opt1=a",
                    "-Dstallscope.it.opt2=b c", "-Xmx384m");
            String environ = new String(Files.readAllBytes(Path.of("/proc/" + pid + "/environ"))).replace('\0', '\n');
            assertThat(environ.lines()).contains("STALLSCOPE_IT_ENV=hello-env");
            // Kafka dumps its effective config at INFO in the broker log.
            assertThat(BrokerTestSupport.read(broker.logFile())).contains("log.segment.bytes = 2097152");

            // consumeAll(fromBeginning=false) counts only what arrives after it started.
            KafkaClients.createTopic(broker, "tail", 1, Map.of());
            assertThat(KafkaClients.produce(broker, "tail", 50, 100)).isEqualTo(50);
            var positioned = new java.util.concurrent.CountDownLatch(1);
            var tail = java.util.concurrent.CompletableFuture.supplyAsync(() -> KafkaClients.consumeAll(
                    KafkaClients.consumerConfig(broker), "tail", false, Duration.ofSeconds(8), positioned::countDown));
            assertThat(positioned.await(30, TimeUnit.SECONDS)).as("tail consumer positioned").isTrue();
            assertThat(KafkaClients.produce(broker, "tail", 70, 100)).isEqualTo(70);
            assertThat(tail.get(30, TimeUnit.SECONDS)).isEqualTo(70);
        }
    }

    @ParameterizedTest(name = "Kafka {0}")
    @ValueSource(strings = {"2.8.2", "4.4.0"})
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void killAndRestartKeepAcknowledgedData(String v) {
        long t0 = System.nanoTime();
        BrokerSpec.Builder spec = BrokerSpec.builder(v).name("crash");
        if (KafkaVersion.of(v).usesKRaft()) {
            // the restarted broker registers once the dead incarnation's session has expired (9 s by default; see
            // KillRecoveryIT.quickReRegistration): a 4 s session with 1 s heartbeats
            spec.serverProperty("broker.session.timeout.ms", "4000").serverProperty("broker.heartbeat.interval.ms", "1000");
        }
        try (LocalKafkaBroker broker = new LocalKafkaBroker(spec.build())) {
            broker.start();
            KafkaClients.createTopic(broker, "durable", 1, KafkaClients.SMALL_SEGMENTS);
            assertThat(KafkaClients.produce(broker, "durable", 3_000, 1_000)).isEqualTo(3_000);
            long firstPid = broker.pid();
            String bootstrap = broker.bootstrapServers();

            broker.kill();
            assertThat(broker.isRunning()).isFalse();
            assertThat(broker.exitCode()).hasValue(137); // 128 + SIGKILL: no clean shutdown
            assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));

            long restartStart = System.nanoTime();
            broker.restart();
            long restartMs = BrokerTestSupport.millisSince(restartStart);
            assertThat(broker.pid()).isNotEqualTo(firstPid);
            assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
            assertThat(KafkaClients.consumeAll(broker, "durable", true, Duration.ofSeconds(60))).isEqualTo(3_000);
            assertThat(KafkaClients.produce(broker, "durable", 500, 1_000)).isEqualTo(500);

            // A graceful restart as well.
            broker.restart();
            assertThat(KafkaClients.consumeAll(broker, "durable", true, Duration.ofSeconds(60))).isEqualTo(3_500);
            BrokerTestSupport.recordTiming(String.format("kafka %s: restart after SIGKILL %d ms, kill/restart test total %d ms",
                    v, restartMs, BrokerTestSupport.millisSince(t0)));
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void closeEndsTheBrokerAndZooKeeper() {
        LocalKafkaBroker broker = new LocalKafkaBroker(BrokerSpec.builder(KafkaVersions.V2_8_2).name("close").build());
        broker.start();
        long pid = broker.pid();
        List<ProcessHandle> children = ProcessHandle.current().children()
                .filter(p -> BrokerTestSupport.commandLine(p.pid()).contains(broker.workDir().toString()))
                .toList();
        assertThat(children).as("broker and ZooKeeper JVMs").hasSize(2);
        broker.close();
        assertThat(children).allSatisfy(p -> assertThat(p.isAlive()).isFalse());
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
        broker.close(); // idempotent
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void startFailureThrowsWithTheLogTail() {
        BrokerSpec spec = BrokerSpec.builder(KafkaVersions.V3_9_2).name("bad-config")
                .serverProperty("num.io.threads", "not-a-number")
                .startTimeout(Duration.ofSeconds(40))
                .build();
        try (LocalKafkaBroker broker = new LocalKafkaBroker(spec)) {
            assertThatThrownBy(broker::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("num.io.threads")
                    .hasMessageContaining(broker.workDir().toString());
            assertThat(broker.isRunning()).isFalse();
        }
    }
}
