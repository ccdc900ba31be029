package io.stallscope.agent.model;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ThreadRolesTest {
    private final ThreadRoles roles = new ThreadRoles(List.of("CONTROLLER"));

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        // network threads, 2.8 - 4.0 and 4.1+
        "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0 | NETWORK",
        "data-plane-kafka-network-thread-0-ListenerName(SSL)-SSL-2              | NETWORK",
        "data-plane-kafka-network-thread-1-PLAINTEXT-PLAINTEXT-0                | NETWORK",
        "data-plane-kafka-network-thread-1-REPLICATION_LISTENER-SASL_SSL-11     | NETWORK",
        "data-plane-kafka-network-thread-1-MY-DASHED-LISTENER-PLAINTEXT-3       | NETWORK",
        // KRaft controller listener shares the prefix
        "data-plane-kafka-network-thread-1-ListenerName(CONTROLLER)-PLAINTEXT-0 | CONTROLLER",
        "data-plane-kafka-network-thread-1-CONTROLLER-PLAINTEXT-1               | CONTROLLER",
        "kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-2             | NETWORK",
        // request handlers (broker and controller pools share the name in combined mode)
        "data-plane-kafka-request-handler-0                                     | REQUEST_HANDLER",
        "data-plane-kafka-request-handler-15                                    | REQUEST_HANDLER",
        "kafka-scheduler-3                                                      | SCHEDULER",
        "ReplicaFetcherThread-0-2                                               | REPLICA_FETCHER",
        "ReplicaAlterLogDirsThread-1                                            | REPLICA_FETCHER",
        "kafka-log-cleaner-thread-0                                             | LOG_CLEANER",
        "kafka-raft-io-thread                                                   | CONTROLLER",
        "kafka-1-raft-io-thread                                                 | CONTROLLER",
        "quorum-controller-1-event-handler                                      | CONTROLLER",
        "controller-event-thread                                                | CONTROLLER",
        "main                                                                   | OTHER",
        "data-plane-kafka-socket-acceptor-ListenerName(PLAINTEXT)-PLAINTEXT-9092 | OTHER",
        "my-kafka-scheduler-like-thread                                         | OTHER",
    })
    void classifiesEveryVersionsNames(String name, ThreadRole expected) {
        assertThat(roles.classify(name)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "data-plane-kafka-network-thread-1-ListenerName(CTRL)-PLAINTEXT-0 | CONTROLLER",
        "data-plane-kafka-network-thread-1-CTRL-PLAINTEXT-0               | CONTROLLER",
        "data-plane-kafka-network-thread-1-CONTROLLER-PLAINTEXT-0         | NETWORK",
    })
    void controllerListenerNamesAreConfiguration(String name, ThreadRole expected) {
        assertThat(new ThreadRoles(List.of("CTRL")).classify(name)).isEqualTo(expected);
    }
}
