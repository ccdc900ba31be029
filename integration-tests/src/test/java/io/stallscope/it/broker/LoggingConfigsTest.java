package io.stallscope.it.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.Properties;

import org.junit.jupiter.api.Test;

class LoggingConfigsTest {

    private static final Path LOG = Path.of("/w/broker.log");

    @Test
    void log4j1ForZooKeeperAndThreeX() throws IOException {
        for (KafkaVersion v : new KafkaVersion[] {KafkaVersions.V2_8_2, KafkaVersions.V3_9_2}) {
            Properties p = load(LoggingConfigs.toFile(v, LOG, "INFO"));
            assertThat(p.getProperty("log4j.rootLogger")).isEqualTo("INFO, file");
            assertThat(p.getProperty("log4j.appender.file")).isEqualTo("org.apache.log4j.FileAppender");
            assertThat(p.getProperty("log4j.appender.file.File")).isEqualTo(LOG.toString());
            assertThat(p.getProperty("log4j.appender.file.layout.ConversionPattern")).contains("[%t]").endsWith("(%c)%n");
            assertThat(LoggingConfigs.fileName(v, "broker")).isEqualTo("broker-log4j.properties");
            assertThat(LoggingConfigs.systemProperties(v, Path.of("/w/c.properties")))
                    .containsExactly("-Dlog4j.configuration=file:///w/c.properties");
        }
    }

    @Test
    void log4j2ForFourX() throws IOException {
        Properties p = load(LoggingConfigs.toFile(KafkaVersions.V4_4_0, LOG, "INFO"));
        assertThat(p.getProperty("appender.file.type")).isEqualTo("File");
        assertThat(p.getProperty("appender.file.fileName")).isEqualTo(LOG.toString());
        assertThat(p.getProperty("rootLogger.level")).isEqualTo("info");
        assertThat(p.getProperty("shutdownHook")).isEqualTo("disable");
        assertThat(p.getProperty("rootLogger.appenderRef.file.ref")).isEqualTo(p.getProperty("appender.file.name"));
        assertThat(LoggingConfigs.systemProperties(KafkaVersions.V4_4_0, Path.of("/w/c.properties")))
                .containsExactly("-Dlog4j2.configurationFile=/w/c.properties");
    }

    @Test
    void toolsLogWarningsToStderr() throws IOException {
        assertThat(load(LoggingConfigs.toStderr(KafkaVersions.V3_6_2, "WARN")).getProperty("log4j.appender.stderr.Target"))
                .isEqualTo("System.err");
        assertThat(load(LoggingConfigs.toStderr(KafkaVersions.V4_1_2, "WARN")).getProperty("appender.err.target"))
                .isEqualTo("SYSTEM_ERR");
    }

    private static Properties load(String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text));
        return p;
    }
}
