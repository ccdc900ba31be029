package io.stallscope.agent.mitigate;

import io.stallscope.agent.kafka.KafkaMembers;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Kafka's own path for a failed log dir, for an I/O error no Kafka code is there to catch (the final fsync
 * at detach): the log's LogDirFailureChannel.maybeAddOfflineLogDir(logDir, msg, e), as Kafka's
 * maybeHandleIOException calls it, so the dir goes offline as the same error in the roll takes it without
 * the agent. The msg is a String from 3.5 (kafka-storage) and a Scala by-name parameter (a Function0)
 * before; the catalog's LOG_DIR_FAILURE entry checks the method's shape per version.
 */
final class LogDirFailures {
    private static final String MAYBE_ADD_OFFLINE = "maybeAddOfflineLogDir";

    private LogDirFailures() {
    }

    /**
     * Hands the error to the log's failure channel; returns the log dir taken offline, or throws when the log
     * has no channel of the expected shape (then the caller can only log the error).
     */
    static String report(Object log, File snapshot, String message, IOException error)
        throws ReflectiveOperationException {
        Object channel = channelOf(log);
        File partitionDir = LogDirs.of(log);
        // Kafka's own call passes the log's parentDir: the log dir, not the partition's
        String logDir = (partitionDir != null ? partitionDir : snapshot.getAbsoluteFile().getParentFile())
            .getAbsoluteFile().getParent();
        Method add = null;
        for (Method m : channel.getClass().getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (m.getName().equals(MAYBE_ADD_OFFLINE) && p.length == 3 && p[0] == String.class
                && p[2] == IOException.class) {
                add = m;
            }
        }
        if (add == null) {
            throw new NoSuchMethodException(channel.getClass().getName() + "." + MAYBE_ADD_OFFLINE);
        }
        Class<?> msgType = add.getParameterTypes()[1];
        Object msg = msgType == String.class ? message : byName(msgType, message);
        try {
            add.invoke(channel, logDir, msg, error);
        } catch (InvocationTargetException e) {
            throw new ReflectiveOperationException(MAYBE_ADD_OFFLINE + " threw " + e.getCause(), e.getCause());
        }
        return logDir;
    }

    /** UnifiedLog.logDirFailureChannel() from 3.1; Log's private field of that name in 2.8 and 3.0. */
    private static Object channelOf(Object log) throws ReflectiveOperationException {
        try {
            return log.getClass().getMethod(KafkaMembers.LOG_DIR_FAILURE_CHANNEL).invoke(log);
        } catch (NoSuchMethodException e) {
            Field f = log.getClass().getDeclaredField(KafkaMembers.LOG_DIR_FAILURE_CHANNEL);
            f.setAccessible(true);
            return f.get(log);
        }
    }

    /** A Scala by-name String: a scala.Function0 (an interface in Scala 2.12+) whose apply() is the message. */
    private static Object byName(Class<?> function0, String message) {
        return Proxy.newProxyInstance(function0.getClassLoader(), new Class<?>[] {function0}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "apply":
                case "toString":
                    return message;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                default:
                    throw new UnsupportedOperationException(method.toString());
            }
        });
    }
}
