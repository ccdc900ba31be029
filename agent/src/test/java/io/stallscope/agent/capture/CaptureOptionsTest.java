package io.stallscope.agent.capture;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.config.OptionException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** profile= and its bounds: off unless asked, the trigger follows the slow threshold, no value outside its range. */
class CaptureOptionsTest {
    private static CaptureSettings settings(String args) throws OptionException {
        return CaptureSettings.from(AgentOptions.parse(args, Map.of()));
    }

    @Test
    void offByDefaultWithDocumentedDefaults() throws Exception {
        AgentOptions o = AgentOptions.parse("", Map.of());
        assertThat(o.profile()).isFalse();
        CaptureSettings s = settings("");
        assertThat(s.chunkNanos).isEqualTo(5_000_000_000L);
        assertThat(s.keep).isEqualTo(3);
        assertThat(s.cooldownNanos).isEqualTo(60_000_000_000L);
        assertThat(s.maxFiles).isEqualTo(20);
        assertThat(s.maxBytes).isEqualTo(1L << 30);
        assertThat(s.engine).isEqualTo("auto");
        assertThat(s.afterNanos).isEqualTo(1_000_000_000L);
        assertThat(AgentOptions.parse("profile=on", Map.of()).profile()).isTrue();
    }

    @Test
    void triggerDefaultsToEachOpsSlowThreshold() throws Exception {
        CaptureSettings s = settings("slow.threshold=250ms,slow.threshold.segment_flush=2s");
        assertThat(s.triggerNanos(Op.RECORDS_APPEND)).isEqualTo(250_000_000L);
        assertThat(s.triggerNanos(Op.SEGMENT_FLUSH)).isEqualTo(2_000_000_000L);
        CaptureSettings set = settings("slow.threshold=250ms,profile.trigger=400ms");
        assertThat(set.triggerNanos(Op.RECORDS_APPEND)).isEqualTo(400_000_000L);
        assertThat(set.triggerNanos(Op.SEGMENT_FLUSH)).isEqualTo(400_000_000L);
    }

    @Test
    void valuesOutsideTheirRangeAreRefusedWithTheRange() {
        assertThatThrownBy(() -> settings("profile.trigger=500us")).hasMessageContaining("from 1ms to 60m");
        assertThatThrownBy(() -> settings("profile.chunk=500ms")).hasMessageContaining("from 1s to 1m");
        assertThatThrownBy(() -> settings("profile.chunk=2m")).hasMessageContaining("from 1s to 1m");
        assertThatThrownBy(() -> settings("profile.keep=1")).hasMessageContaining("from 2 to 20");
        assertThatThrownBy(() -> settings("profile.cooldown=61m")).hasMessageContaining("from 0 to 60m");
        assertThatThrownBy(() -> settings("profile.max-files=0")).hasMessageContaining("from 1 to 10000");
        assertThatThrownBy(() -> settings("profile.max-bytes=100")).hasMessageContaining("from 1KiB");
        assertThatThrownBy(() -> settings("profile.interval=0")).hasMessageContaining("from 1ms to 1s");
        assertThatThrownBy(() -> settings("profile.engine=asyncprofiler"))
            .hasMessageContaining("did you mean 'async-profiler'");
        assertThatThrownBy(() -> settings("profile=maybe")).hasMessageContaining("expected true or false");
    }

    @Test
    void valuesInRangeAndFromTheEnvironmentWithDashes() throws Exception {
        CaptureSettings s = settings("profile.chunk=1s,profile.keep=20,profile.cooldown=0,profile.max-files=1,"
            + "profile.max-bytes=1KiB,profile.engine=jfr,profile.dir=/var/tmp/caps");
        assertThat(s.chunkNanos).isEqualTo(1_000_000_000L);
        assertThat(s.keep).isEqualTo(20);
        assertThat(s.cooldownNanos).isZero();
        assertThat(s.maxFiles).isEqualTo(1);
        assertThat(s.maxBytes).isEqualTo(1024);
        assertThat(s.engine).isEqualTo("jfr");
        assertThat(s.dir()).isEqualTo(Path.of("/var/tmp/caps"));
        AgentOptions env = AgentOptions.parse("", Map.of("STALLSCOPE_PROFILE_MAX_BYTES", "2MiB"));
        assertThat(env.profileMaxBytes()).isEqualTo(2L << 20);
    }

    @Test
    void defaultDirIsNextToTheBrokersLogsWhenKafkaNamedThem() {
        String before = System.getProperty("kafka.logs.dir");
        try {
            System.setProperty("kafka.logs.dir", "/opt/kafka/logs");
            assertThat(CaptureSettings.defaultDir()).isEqualTo(Path.of("/opt/kafka/logs/stallscope-captures"));
            System.clearProperty("kafka.logs.dir");
            assertThat(CaptureSettings.defaultDir().toString()).startsWith(System.getProperty("java.io.tmpdir"))
                .contains("stallscope-captures-");
        } finally {
            if (before != null) {
                System.setProperty("kafka.logs.dir", before);
            }
        }
    }
}
