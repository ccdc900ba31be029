package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaMembers;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.channels.FileChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The file range a fetch will send: each partition read yields a FetchDataInfo whose records are a
 * FileRecords slice (channel, start, size) of the segment. Read reflectively because the classes
 * moved between versions (kafka.server.FetchDataInfo.records() up to 3.5, the public field
 * FetchDataInfo.records from 3.6; FileRecords in ...record.internal from 4.3).
 */
final class FileSlice {
    /** Kafka's channel of the segment: only isOpen() is ever asked of it ({@link SliceWarmer} says why). */
    final FileChannel channel;
    final File file;
    final long start;
    final long size;

    FileSlice(FileChannel channel, File file, long start, long size) {
        this.channel = channel;
        this.file = file;
        this.start = start;
        this.size = size;
    }

    private static final Map<Class<?>, Accessor> INFO = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Accessor> RECORDS = new ConcurrentHashMap<>();

    /** The slice of a FetchDataInfo, or null when it holds no file records. */
    static FileSlice of(Object fetchDataInfo) throws ReflectiveOperationException {
        if (fetchDataInfo == null) {
            return null;
        }
        Object records = INFO.computeIfAbsent(fetchDataInfo.getClass(), Accessor::forInfo).get(fetchDataInfo);
        if (records == null) {
            return null;
        }
        Accessor r = RECORDS.computeIfAbsent(records.getClass(), Accessor::forRecords);
        if (r.channel == null) {
            return null; // MemoryRecords, remote records: nothing on the local disk to warm
        }
        return new FileSlice((FileChannel) r.channel.invoke(records), (File) r.file.invoke(records),
            r.start.getInt(records), ((Integer) r.size.invoke(records)).longValue());
    }

    private static final class Accessor {
        Method recordsMethod;
        Field recordsField;
        Method channel;
        Method file;
        Method size;
        Field start;

        static Accessor forInfo(Class<?> type) {
            Accessor a = new Accessor();
            try {
                a.recordsField = type.getField(KafkaMembers.FETCH_RECORDS);
            } catch (NoSuchFieldException e) {
                try {
                    a.recordsMethod = type.getMethod(KafkaMembers.FETCH_RECORDS);
                } catch (NoSuchMethodException ignored) {
                    // neither: get() returns null and nothing is warmed
                }
            }
            return a;
        }

        static Accessor forRecords(Class<?> type) {
            Accessor a = new Accessor();
            try {
                Method channel = type.getMethod(KafkaMembers.FILE_RECORDS_CHANNEL);
                Method file = type.getMethod(KafkaMembers.FILE_RECORDS_FILE);
                Method size = type.getMethod(KafkaMembers.FILE_RECORDS_SIZE);
                Field start = type.getDeclaredField(KafkaMembers.FILE_RECORDS_START);
                start.setAccessible(true);
                a.file = file;
                a.size = size;
                a.start = start;
                a.channel = channel;
            } catch (ReflectiveOperationException | RuntimeException e) {
                a.channel = null;
            }
            return a;
        }

        Object get(Object info) throws ReflectiveOperationException {
            if (recordsField != null) {
                return recordsField.get(info);
            }
            return recordsMethod == null ? null : recordsMethod.invoke(info);
        }
    }
}
