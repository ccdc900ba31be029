package io.stallscope.agent.logging;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Logs through the broker's own slf4j (logger "stallscope"), found on the system class loader, so
 * the agent's lines land in server.log with the broker's format and appenders. The agent carries no
 * slf4j of its own (that would clash with Kafka's reload4j or log4j2 binding). Without slf4j, lines
 * go to stderr.
 */
public final class BrokerLog {
    private static final String NAME = "stallscope";
    private static volatile BrokerLog instance;

    private final Object logger;
    private final MethodHandle info;
    private final MethodHandle warn;
    private final MethodHandle error;

    private BrokerLog(Object logger, MethodHandle info, MethodHandle warn, MethodHandle error) {
        this.logger = logger;
        this.info = info;
        this.warn = warn;
        this.error = error;
    }

    public static BrokerLog get() {
        BrokerLog log = instance;
        if (log == null) {
            synchronized (BrokerLog.class) {
                log = instance;
                if (log == null) {
                    log = create();
                    instance = log;
                }
            }
        }
        return log;
    }

    private static BrokerLog create() {
        try {
            ClassLoader system = ClassLoader.getSystemClassLoader();
            Class<?> factory = Class.forName("org.slf4j.LoggerFactory", true, system);
            Class<?> loggerType = Class.forName("org.slf4j.Logger", false, system);
            Object logger = factory.getMethod("getLogger", String.class).invoke(null, NAME);
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodType type = MethodType.methodType(void.class, String.class);
            return new BrokerLog(logger,
                lookup.findVirtual(loggerType, "info", type),
                lookup.findVirtual(loggerType, "warn", type),
                lookup.findVirtual(loggerType, "error", type));
        } catch (Throwable t) {
            return new BrokerLog(null, null, null, null);
        }
    }

    public void info(String message) {
        write(info, "INFO", message);
    }

    public void warn(String message) {
        write(warn, "WARN", message);
    }

    public void error(String message) {
        write(error, "ERROR", message);
    }

    private void write(MethodHandle handle, String level, String message) {
        if (logger != null) {
            try {
                handle.invoke(logger, message);
                return;
            } catch (Throwable ignored) {
                // fall back to stderr below
            }
        }
        stderr(level, message);
    }

    /** For the few lines written before or without a broker logger (bad options, attach client). */
    public static void stderr(String level, String message) {
        System.err.println("[stallscope] " + level + " " + message);
    }
}
