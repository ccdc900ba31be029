package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaMembers;

import java.io.File;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The partition directory of a Log, UnifiedLog or LocalLog, through its public dir() method. */
final class LogDirs {
    private static final Map<Class<?>, Method> DIR = new ConcurrentHashMap<>();

    private LogDirs() {
    }

    /** The log's directory; throws when the object has no dir() (then callers act on every log). */
    static File of(Object log) throws ReflectiveOperationException {
        Method dir = DIR.get(log.getClass());
        if (dir == null) {
            dir = log.getClass().getMethod(KafkaMembers.LOG_DIR);
            DIR.put(log.getClass(), dir);
        }
        return (File) dir.invoke(log);
    }
}
