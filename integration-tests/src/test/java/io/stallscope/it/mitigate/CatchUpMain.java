package io.stallscope.it.mitigate;

import io.stallscope.it.broker.KafkaClients;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The catch-up consumer of {@link CatchUpBenchIT} as a process of its own, as a consumer on another
 * machine would be: reads a topic from its first offset to the end offsets seen at its start, default
 * fetch sizes, no consumer group. Prints "positioned" once every partition's position is fixed and
 * "done N" when it has read N records; nothing else goes to stdout.
 * Arguments: bootstrap servers, topic, timeout in seconds.
 */
public final class CatchUpMain {
    private CatchUpMain() {
    }

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: CatchUpMain BOOTSTRAP TOPIC TIMEOUT_SECONDS");
            System.exit(2);
        }
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try {
            long n = KafkaClients.consumeAll(c, args[1], true, Duration.ofSeconds(Long.parseLong(args[2])), () -> {
                System.out.println("positioned");
                System.out.flush();
            });
            System.out.println("done " + n);
        } catch (RuntimeException e) {
            System.err.println("catch-up failed: " + e);
            System.exit(1);
        }
    }
}
