package io.stallscope.agent.config;

import io.stallscope.agent.bootstrap.Op;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentOptionsTest {
    private static final Map<String, String> NO_ENV = Map.of();

    @Test
    void defaultsAreQuietAndSafe() throws Exception {
        AgentOptions o = AgentOptions.parse("", NO_ENV);
        assertThat(o.prometheus().enabled()).isFalse();
        assertThat(o.jmx()).isTrue();
        assertThat(o.slowThresholdNanos(Op.SEGMENT_FLUSH)).isEqualTo(100_000_000L);
        assertThat(o.jfrThresholdNanos(Op.TRANSFER_TO)).isEqualTo(1_000_000L);
        assertThat(o.topicLabels()).isFalse();
        assertThat(o.strict()).isFalse();
        for (int op = 0; op < Op.COUNT; op++) {
            assertThat(o.opEnabled(op)).isTrue();
        }
        assertThat(o.activateMain().matcher("kafka.Kafka").matches()).isTrue();
        assertThat(o.activateMain().matcher("kafka.admin.TopicCommand").matches()).isFalse();
        assertThat(o.activateMain().matcher("org.apache.kafka.tools.ProducerPerformance").matches()).isFalse();
    }

    @Test
    void prometheusBindsLoopbackUnlessAnAddressIsNamed() throws Exception {
        assertThat(AgentOptions.parse("prometheus=9405", NO_ENV).prometheus().host()).isEqualTo("127.0.0.1");
        assertThat(AgentOptions.parse("prometheus=9405", NO_ENV).prometheus().port()).isEqualTo(9405);
        assertThat(AgentOptions.parse("prometheus=0.0.0.0:9500", NO_ENV).prometheus().host()).isEqualTo("0.0.0.0");
        assertThat(AgentOptions.parse("prometheus=off", NO_ENV).prometheus().enabled()).isFalse();
        assertThatThrownBy(() -> AgentOptions.parse("prometheus=lots", NO_ENV))
            .hasMessageContaining("bad value 'lots' for option 'prometheus'");
        assertThatThrownBy(() -> AgentOptions.parse("prometheus=70000", NO_ENV)).isInstanceOf(OptionException.class);
    }

    @Test
    void unknownKeyNamesItAndTheNearestValidKey() {
        assertThatThrownBy(() -> AgentOptions.parse("promethus=9405", NO_ENV))
            .isInstanceOf(OptionException.class)
            .hasMessage("unknown option 'promethus' (did you mean 'prometheus'?)");
        assertThatThrownBy(() -> AgentOptions.parse("slow.treshold=5ms", NO_ENV))
            .hasMessageContaining("did you mean 'slow.threshold'?");
        assertThatThrownBy(() -> AgentOptions.parse("zzzzzzzzzzzz=1", NO_ENV))
            .hasMessage("unknown option 'zzzzzzzzzzzz'");
    }

    @Test
    void badValuesSayWhatIsExpected() {
        assertThatThrownBy(() -> AgentOptions.parse("slow.threshold=fast", NO_ENV))
            .hasMessageContaining("expected a duration with a unit");
        assertThatThrownBy(() -> AgentOptions.parse("slow.threshold=5 hours", NO_ENV))
            .hasMessageContaining("unknown unit 'hours'");
        assertThatThrownBy(() -> AgentOptions.parse("jmx=maybe", NO_ENV)).hasMessageContaining("expected true or false");
        assertThatThrownBy(() -> AgentOptions.parse("safepoint.timing=perf", NO_ENV))
            .hasMessageContaining("expected auto, jfr, counters or off");
        assertThatThrownBy(() -> AgentOptions.parse("topic.labels.max=-3", NO_ENV))
            .hasMessageContaining("expected a whole number above 0");
        assertThatThrownBy(() -> AgentOptions.parse("activate.main=kafka(", NO_ENV))
            .hasMessageContaining("not a valid regular expression");
        assertThatThrownBy(() -> AgentOptions.parse("ops=segment_flush,records_apend", NO_ENV))
            .hasMessageContaining("unknown op 'records_apend' (did you mean 'records_append'?)");
        assertThatThrownBy(() -> AgentOptions.parse("prometheus", NO_ENV))
            .hasMessageContaining("expected key=value but found 'prometheus'");
    }

    @Test
    void allErrorsComeInOneLine() {
        assertThatThrownBy(() -> AgentOptions.parse("promethus=1,jmx=maybe", NO_ENV))
            .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n")
                .contains("promethus").contains("jmx"));
    }

    @Test
    void safepointTimingTakesASourceAndTheOldTrueAndFalse() throws Exception {
        assertThat(AgentOptions.parse("", NO_ENV).safepointTiming()).isEqualTo("auto");
        assertThat(AgentOptions.parse("safepoint.timing=COUNTERS", NO_ENV).safepointTiming()).isEqualTo("counters");
        assertThat(AgentOptions.parse("safepoint.timing=jfr", NO_ENV).safepointTiming()).isEqualTo("jfr");
        assertThat(AgentOptions.parse("safepoint.timing=true", NO_ENV).safepointTiming()).isEqualTo("auto");
        assertThat(AgentOptions.parse("safepoint.timing=false", NO_ENV).safepointTiming()).isEqualTo("off");
    }

    @Test
    void durationsAcceptTheUsualUnits() throws Exception {
        AgentOptions o = AgentOptions.parse("slow.threshold=2s,jfr.threshold=250us,"
            + "slow.threshold.transfer_to=20ms,jfr.threshold.segment_flush=0", NO_ENV);
        assertThat(o.slowThresholdNanos(Op.SEGMENT_FLUSH)).isEqualTo(2_000_000_000L);
        assertThat(o.slowThresholdNanos(Op.TRANSFER_TO)).isEqualTo(20_000_000L);
        assertThat(o.jfrThresholdNanos(Op.RECORDS_APPEND)).isEqualTo(250_000L);
        assertThat(o.jfrThresholdNanos(Op.SEGMENT_FLUSH)).isZero();
    }

    @Test
    void listValuesMayContinueAfterACommaAndOtherKeysFollow() throws Exception {
        AgentOptions o = AgentOptions.parse("ops=segment_flush,transfer_to,prometheus=9405", NO_ENV);
        assertThat(o.opEnabled(Op.SEGMENT_FLUSH)).isTrue();
        assertThat(o.opEnabled(Op.TRANSFER_TO)).isTrue();
        assertThat(o.opEnabled(Op.RECORDS_APPEND)).isFalse();
        assertThat(o.prometheus().port()).isEqualTo(9405);
    }

    @Test
    void environmentThenFileThenArgumentEachWin(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("stallscope.properties");
        Files.writeString(file, "slow.threshold=300ms\njmx=false\nprometheus=9500\n");
        Map<String, String> env = Map.of("STALLSCOPE_SLOW_THRESHOLD", "1s", "STALLSCOPE_JFR", "false",
            "STALLSCOPE_SLOW_THRESHOLD_SEGMENT_FLUSH", "7ms", "PATH", "/usr/bin");
        AgentOptions o = AgentOptions.parse("config=" + file + ",prometheus=9600", env);
        assertThat(o.jfr()).isFalse();                                    // environment only
        assertThat(o.slowThresholdNanos(Op.SEGMENT_FLUSH)).isEqualTo(7_000_000L); // per-op from environment
        assertThat(o.slowThresholdNanos(Op.TRANSFER_TO)).isEqualTo(300_000_000L); // file beats environment
        assertThat(o.jmx()).isFalse();
        assertThat(o.prometheus().port()).isEqualTo(9600);                 // argument beats file
        assertThat(o.source("prometheus")).isEqualTo("agent argument");
    }

    @Test
    void anUnreadableFileIsAnError(@TempDir Path dir) {
        assertThatThrownBy(() -> AgentOptions.parse("config=" + dir.resolve("missing.properties"), NO_ENV))
            .hasMessageContaining("cannot read config file");
    }

    /**
     * STALLSCOPE_ is not our prefix alone: Kubernetes puts STALLSCOPE_SERVICE_HOST and _PORT into every pod of a
     * namespace with a Service named stallscope, and the project's own scripts set STALLSCOPE_ANALYZER_JAR. Such a
     * variable is no option: it is named once in the start-up line, its value never, and with strict=true too
     * the agent starts.
     */
    @Test
    void otherStallscopeVariablesAreIgnoredAndNamedNotRefused() throws Exception {
        Map<String, String> env = Map.of("STALLSCOPE_SERVICE_HOST", "10.0.0.1", "STALLSCOPE_SERVICE_PORT", "9405",
            "STALLSCOPE_ANALYZER_JAR", "/opt/a.jar", "STALLSCOPE_PROMETEUS", "9405", "STALLSCOPE_JFR", "false");
        AgentOptions o = AgentOptions.parse("strict=true", env);
        assertThat(o.strict()).isTrue();
        assertThat(o.jfr()).as("a real option from the environment still counts").isFalse();
        assertThat(o.ignored()).containsExactlyInAnyOrder(
            "ignored environment STALLSCOPE_SERVICE_HOST: not an option",
            "ignored environment STALLSCOPE_SERVICE_PORT: not an option",
            "ignored environment STALLSCOPE_ANALYZER_JAR: not an option",
            "ignored environment STALLSCOPE_PROMETEUS: not an option (did you mean 'prometheus'?)");
        assertThat(String.join(";", o.ignored())).doesNotContain("10.0.0.1").doesNotContain("/opt/a.jar");
        assertThat(AgentOptions.strictRequested("", Map.of("STALLSCOPE_SERVICE_HOST", "10.0.0.1", "STALLSCOPE_STRICT", "true")))
            .isTrue();
    }

    @Test
    void strictIsFoundEvenWhenOtherOptionsAreBroken() {
        assertThat(AgentOptions.strictRequested("promethus=1,strict=true", NO_ENV)).isTrue();
        assertThat(AgentOptions.strictRequested("promethus=1", Map.of("STALLSCOPE_STRICT", "on"))).isTrue();
        assertThat(AgentOptions.strictRequested("promethus=1", NO_ENV)).isFalse();
    }

    @Test
    void everyOptionHasADescriptionForTheReadme() {
        for (OptionSpec spec : Options.ALL) {
            assertThat(spec.description()).as(spec.key()).isNotBlank();
        }
    }
}
