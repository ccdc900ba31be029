package io.stallscope.agent.holes;

import io.stallscope.agent.kafka.KafkaReleases;
import io.stallscope.agent.kafka.WovenKafka;

import java.io.File;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Segment files written and read by one Kafka version's own kafka-clients (FileRecords, MemoryRecords), loaded in a
 * class loader of their own from target/kafka-jars/VERSION (records.internal from 4.3), so the test's kafka-clients
 * answers for none of them.
 */
final class KafkaRecordsWriter implements AutoCloseable {
    private final WovenKafka kafka;
    private final Class<?> fileRecords;
    private final Method withRecords;
    private final Object none;
    private final Class<?> simpleRecord;

    private KafkaRecordsWriter(String version, boolean storage, Map<String, byte[]> woven) throws Exception {
        kafka = WovenKafka.of(version, storage, woven);
        String pkg = KafkaReleases.compare(version, "4.3") >= 0
            ? "org.apache.kafka.common.record.internal." : "org.apache.kafka.common.record.";
        fileRecords = kafka.kafkaClass(pkg + "FileRecords");
        simpleRecord = kafka.kafkaClass(pkg + "SimpleRecord");
        Method found = null;
        for (Method m : kafka.kafkaClass(pkg + "MemoryRecords").getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (m.getName().equals("withRecords") && p.length == 3 && p[0] == long.class && p[2].isArray()) {
                found = m;
            }
        }
        withRecords = found;
        Class<?> compression = found.getParameterTypes()[1];
        none = compression.isEnum() ? enumNone(compression) : compression.getField("NONE").get(null);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumNone(Class<?> type) {
        return Enum.valueOf((Class) type, "NONE");
    }

    static KafkaRecordsWriter of(String version) throws Exception {
        return new KafkaRecordsWriter(version, false, Collections.emptyMap());
    }

    /** With kafka-storage and server-common (3.7+: LogSegment, LogConfig) in the same class loader. */
    static KafkaRecordsWriter withStorage(String version) throws Exception {
        return new KafkaRecordsWriter(version, true, Collections.emptyMap());
    }

    /** With storage, and these classes (name to class file) defined from the bytes given: Kafka's, woven by the agent's advice. */
    static KafkaRecordsWriter withStorage(String version, Map<String, byte[]> woven) throws Exception {
        return new KafkaRecordsWriter(version, true, woven);
    }

    Class<?> kafkaClass(String name) throws ClassNotFoundException {
        return kafka.kafkaClass(name);
    }

    /** Appends one batch of count records, offsets from baseOffset; returns the file's size after it. */
    long append(Path segment, long baseOffset, int count) throws Exception {
        Object records = Array.newInstance(simpleRecord, count);
        for (int i = 0; i < count; i++) {
            byte[] value = ("record " + (baseOffset + i)).getBytes(StandardCharsets.UTF_8);
            Array.set(records, i, simpleRecord.getConstructor(byte[].class, byte[].class).newInstance(null, value));
        }
        Object memory = withRecords.invoke(null, baseOffset, none, records);
        Object file = fileRecords.getMethod("open", File.class).invoke(null, segment.toFile());
        try {
            fileRecords.getMethod("append", memory.getClass()).invoke(file, memory);
            fileRecords.getMethod("flush").invoke(file);
        } finally {
            fileRecords.getMethod("close").invoke(file);
        }
        return Files.size(segment);
    }

    /**
     * A log in partition directory log (created): offsets 0-2 and 3-9 in its first segment, 5 offsets from each of
     * laterBases in a segment of its own. Returns where the batch of 0-2 ends, the boundary a cut keeps.
     */
    long writeLog(Path log, long... laterBases) throws Exception {
        Files.createDirectories(log);
        Path first = log.resolve(name(0));
        long boundary = append(first, 0, 3);
        append(first, 3, 7);
        for (long base : laterBases) {
            append(log.resolve(name(base)), base, 5);
        }
        return boundary;
    }

    /** Kafka's own reading of the segment: every batch's next offset, in order. */
    List<Long> nextOffsets(Path segment) throws Exception {
        Object file = fileRecords.getMethod("open", File.class).invoke(null, segment.toFile());
        List<Long> out = new ArrayList<>();
        try {
            for (Object batch : (Iterable<?>) fileRecords.getMethod("batches").invoke(file)) {
                Method next = batch.getClass().getMethod("nextOffset");
                next.setAccessible(true);
                out.add((Long) next.invoke(batch));
            }
        } finally {
            fileRecords.getMethod("close").invoke(file);
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        kafka.close();
    }

    static String name(long baseOffset) {
        return String.format("%020d.log", baseOffset);
    }
}
