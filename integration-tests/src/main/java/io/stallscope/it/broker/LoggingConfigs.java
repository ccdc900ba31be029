package io.stallscope.it.broker;

import java.nio.file.Path;

/**
 * Logging configuration for broker and tool JVMs: log4j 1.x properties (read by log4j 1.2 in 2.8 and
 * reload4j in 3.x) or log4j2 properties (4.x). Broker logs go to a file at INFO with the thread name,
 * in Kafka's own layout otherwise, so lines such as {@code started (kafka.server.KafkaServer)} match.
 */
public final class LoggingConfigs {

    /** Kafka's layout plus the thread name: {@code [time] LEVEL [thread] message (logger)}. */
    public static final String LOG4J1_PATTERN = "[%d] %p [%t] %m (%c)%n";
    public static final String LOG4J2_PATTERN = "[%d] %p [%t] %m (%c)%n";

    private LoggingConfigs() {
    }

    /** File name of the generated configuration for this version. */
    public static String fileName(KafkaVersion v, String role) {
        return v.usesLog4j2() ? role + "-log4j2.properties" : role + "-log4j.properties";
    }

    /** JVM system properties that point the logging backend of {@code v} at {@code config}. */
    public static String[] systemProperties(KafkaVersion v, Path config) {
        if (v.usesLog4j2()) {
            return new String[] {"-Dlog4j2.configurationFile=" + config};
        }
        return new String[] {"-Dlog4j.configuration=" + config.toUri()};
    }

    /** All loggers at {@code level} to {@code logFile}. */
    public static String toFile(KafkaVersion v, Path logFile, String level) {
        return v.usesLog4j2() ? log4j2File(logFile, level) : log4j1File(logFile, level);
    }

    /** WARN and above to stderr: for short-lived tools whose stdout the harness parses. */
    public static String toStderr(KafkaVersion v, String level) {
        if (v.usesLog4j2()) {
            return """
                    status = warn
                    shutdownHook = disable
                    appender.err.type = Console
                    appender.err.name = STDERR
                    appender.err.target = SYSTEM_ERR
                    appender.err.layout.type = PatternLayout
                    appender.err.layout.pattern = %s
                    rootLogger.level = %s
                    rootLogger.appenderRef.err.ref = STDERR
                    """.formatted(LOG4J2_PATTERN, level.toLowerCase());
        }
        return """
                log4j.rootLogger=%s, stderr
                log4j.appender.stderr=org.apache.log4j.ConsoleAppender
                log4j.appender.stderr.Target=System.err
                log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
                log4j.appender.stderr.layout.ConversionPattern=%s
                """.formatted(level.toUpperCase(), LOG4J1_PATTERN);
    }

    static String log4j1File(Path logFile, String level) {
        return """
                log4j.rootLogger=%s, file
                log4j.appender.file=org.apache.log4j.FileAppender
                log4j.appender.file.File=%s
                log4j.appender.file.Append=true
                log4j.appender.file.layout=org.apache.log4j.PatternLayout
                log4j.appender.file.layout.ConversionPattern=%s
                log4j.logger.kafka=%s
                log4j.logger.org.apache.kafka=%s
                """.formatted(level.toUpperCase(), BrokerConfigs.escape(logFile.toString()), LOG4J1_PATTERN,
                level.toUpperCase(), level.toUpperCase());
    }

    static String log4j2File(Path logFile, String level) {
        return """
                status = warn
                name = stallscope-broker
                # log4j2's own shutdown hook would stop logging while Kafka's shutdown hook still runs,
                # losing the shutdown lines (and anything an agent logs at exit). The File appender
                # flushes every line, so nothing is lost without the hook.
                shutdownHook = disable
                appender.file.type = File
                appender.file.name = FILE
                appender.file.fileName = %s
                appender.file.append = true
                appender.file.immediateFlush = true
                appender.file.layout.type = PatternLayout
                appender.file.layout.pattern = %s
                rootLogger.level = %s
                rootLogger.appenderRef.file.ref = FILE
                """.formatted(BrokerConfigs.escape(logFile.toString()), LOG4J2_PATTERN, level.toLowerCase());
    }
}
