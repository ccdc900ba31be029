package io.stallscope.it.agent;

import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.KafkaVersions;
import io.stallscope.it.container.BrokerFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The agent given to a real broker (a child JVM) at start, as an operator does with KAFKA_OPTS, on the
 * versions with a changed storage path and on the newest JDK: {@link AgentAtStartCheck}.
 */
class AgentAtStartIT {
    static Stream<Arguments> brokers() {
        List<Arguments> out = new ArrayList<>();
        for (KafkaVersion v : KafkaVersions.tested()) {
            out.add(Arguments.of(v, KafkaJdks.defaultJdk()));
        }
        // the newest Kafka also on the newest JDK on this machine (no JDK 11 can be had here)
        Path newest = KafkaJdks.newest();
        if (!newest.equals(KafkaJdks.defaultJdk())) {
            out.add(Arguments.of(KafkaVersions.NEWEST, newest));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "Kafka {0} on {1}")
    @MethodSource("brokers")
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void everyPointIsTimedWithRoleAndPartition(KafkaVersion version, Path jdk) throws Exception {
        AgentAtStartCheck.run(BrokerFactory.LOCAL, version, jdk, broker -> { });
    }
}
