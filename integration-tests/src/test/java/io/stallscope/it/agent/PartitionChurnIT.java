package io.stallscope.it.agent;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.KafkaClients;
import io.stallscope.it.broker.KafkaJdks;
import io.stallscope.it.broker.LocalKafkaBroker;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent keeps no deleted partition's log alive and no dead thread's state (issue 57), on a real broker:
 * partitions are created, written, read and deleted, then the broker's own heap is counted after a full GC
 * ({@code jmap -histo:live}, the JDK's tool). Before the fix, 60 topics deleted on 3.9.2 left 99 UnifiedLog
 * instances alive with the agent and 1 without. Twice: with the agent loaded at start, and after a detach (a
 * detach must leave nothing that pins a log either). {@code -Dstallscope.churn.partitions=1000} for the issue's
 * full run; scripts/beyond-ci runs it (-Dstallscope.beyond.ci=true), CI does not (its time). The 10,000 short-lived threads are {@code ThreadStatesLifetimeTest}'s,
 * in the agent's own tests.
 */
@EnabledIfSystemProperty(named = "stallscope.beyond.ci", matches = "true")
class PartitionChurnIT {
    private static final int PARTITIONS = Integer.getInteger("stallscope.churn.partitions", 100);
    private static final int PER_TOPIC = 10;
    /** A {@code jmap -histo} row: rank, instances, bytes, class name. */
    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+\\d+\\s+(\\S+)");

    @Test
    @Timeout(value = 30, unit = TimeUnit.MINUTES)
    void deletedPartitionsLogsAreNotKeptAliveWithTheAgentNorAfterItsDetach() throws Exception {
        BrokerSpec spec = BrokerSpec.builder("3.9.2").name("partition-churn").heap("1g")
            .serverProperty("file.delete.delay.ms", "1000") // a deleted log's files go 1 s after its deletion
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + FreePorts.next()).build();
        try (LocalKafkaBroker broker = new LocalKafkaBroker(spec)) {
            broker.start();
            Histogram atStart = Histogram.of(broker.pid());
            System.out.println("at start: " + atStart.summary());

            churn(broker, "attached");
            Histogram attached = Histogram.of(broker.pid());
            System.out.println("after " + PARTITIONS + " partitions created, written, read and deleted: " + attached.summary());
            assertThat(attached.logs()).as("logs alive after the deletions, with the agent: " + attached.summary())
                .isLessThanOrEqualTo(atStart.logs());
            assertThat(attached.threadStates()).as("the agent's thread states against the broker's live threads: " + attached.summary())
                .isLessThanOrEqualTo(liveThreads(broker.pid()));

            // written and read while attached, deleted after the detach: nothing of the detached agent may pin them
            List<String> topics = create(broker, "detached");
            writeAndRead(broker, topics);
            AgentCommand.Result detached = AgentCommand.run(KafkaJdks.defaultJdk(), "detach", Long.toString(broker.pid()));
            assertThat(detached.exitCode()).as(detached.output()).isZero();
            delete(broker, topics);
            Histogram afterDetach = Histogram.of(broker.pid());
            System.out.println("after a detach and " + PARTITIONS + " more deleted: " + afterDetach.summary());
            assertThat(afterDetach.logs()).as("logs alive after the deletions, the agent detached: " + afterDetach.summary())
                .isLessThanOrEqualTo(atStart.logs());
            assertThat(broker.isRunning()).isTrue();
        }
    }

    private static void churn(LocalKafkaBroker broker, String prefix) throws Exception {
        List<String> topics = create(broker, prefix);
        writeAndRead(broker, topics);
        delete(broker, topics);
    }

    private static List<String> create(LocalKafkaBroker broker, String prefix) throws Exception {
        List<String> topics = IntStream.range(0, PARTITIONS / PER_TOPIC).mapToObj(i -> prefix + "-" + i).toList();
        try (Admin admin = KafkaClients.admin(broker)) {
            admin.createTopics(topics.stream().map(t -> new NewTopic(t, PER_TOPIC, (short) 1)).toList()).all().get(2, TimeUnit.MINUTES);
        }
        return topics;
    }

    /** One record to every partition (an append, and a roll of nothing), then every topic read from the start. */
    private static void writeAndRead(LocalKafkaBroker broker, List<String> topics) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KafkaClients.producerConfig(broker))) {
            List<Future<?>> sent = new ArrayList<>();
            for (String t : topics) {
                for (int p = 0; p < PER_TOPIC; p++) {
                    sent.add(producer.send(new ProducerRecord<>(t, p, null, new byte[512])));
                }
            }
            for (Future<?> f : sent) {
                f.get(2, TimeUnit.MINUTES);
            }
        }
        // one consumer over every partition (a consumer per topic took most of the run: 152 s for 100 partitions)
        List<TopicPartition> partitions = topics.stream()
            .flatMap(t -> IntStream.range(0, PER_TOPIC).mapToObj(p -> new TopicPartition(t, p))).toList();
        Set<TopicPartition> read = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(KafkaClients.consumerConfig(broker))) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (read.size() < partitions.size()) {
                assertThat(System.nanoTime()).as("read " + read.size() + " of " + partitions.size() + " partitions' records in 2 min")
                    .isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    assertThat(read.add(new TopicPartition(r.topic(), r.partition()))).as("one record per partition: " + r).isTrue();
                }
            }
        }
    }

    /** Deletes the topics and waits until their directories are gone from the log dir (renamed -delete, then removed). */
    private static void delete(LocalKafkaBroker broker, List<String> topics) throws Exception {
        try (Admin admin = KafkaClients.admin(broker)) {
            admin.deleteTopics(topics).all().get(2, TimeUnit.MINUTES);
        }
        Path data = broker.dataDir();
        String first = topics.get(0).substring(0, topics.get(0).lastIndexOf('-') + 1);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        for (long left = left(data, first); left > 0; left = left(data, first)) {
            assertThat(System.nanoTime()).as(left + " partition dirs of " + first + "* still in " + data + " after 2 min")
                .isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(250);
        }
    }

    private static long left(Path data, String prefix) throws IOException {
        try (Stream<Path> dirs = Files.list(data)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith(prefix)).count();
        }
    }

    /** The broker's live threads, from the JDK's own thread dump. */
    private static long liveThreads(long pid) throws Exception {
        String dump = Jdk.run("jcmd", Long.toString(pid), "Thread.print");
        return dump.lines().filter(l -> l.startsWith("\"")).count();
    }

    /** The instance counts this test needs, from {@code jmap -histo:live} (a full GC first). */
    record Histogram(long logs, long segments, long threadStates) {
        static Histogram of(long pid) throws Exception {
            long logs = 0;
            long segments = 0;
            long states = 0;
            for (String line : Jdk.run("jmap", "-histo:live", Long.toString(pid)).split("\n")) {
                Matcher m = ROW.matcher(line);
                if (!m.find()) {
                    continue;
                }
                long n = Long.parseLong(m.group(1));
                String cls = m.group(2);
                if (cls.endsWith(".UnifiedLog")) {
                    logs += n;
                } else if (cls.endsWith(".LogSegment")) {
                    segments += n;
                } else if (cls.startsWith("io.stallscope.") && cls.endsWith(".ThreadState")) {
                    states += n;
                }
            }
            return new Histogram(logs, segments, states);
        }

        String summary() {
            return logs + " UnifiedLog, " + segments + " LogSegment, " + threadStates + " ThreadState";
        }
    }

    /** The default JDK's own tools, run to completion. */
    private static final class Jdk {
        static String run(String tool, String... args) throws Exception {
            List<String> cmd = new ArrayList<>(List.of(KafkaJdks.defaultJdk().resolve("bin").resolve(tool).toString()));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(2, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
            }
            return out;
        }
    }
}
