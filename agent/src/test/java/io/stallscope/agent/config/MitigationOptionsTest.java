package io.stallscope.agent.config;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** mitigate= and the bounds of its knobs: nothing is on unless asked, and no value outside its range passes. */
class MitigationOptionsTest {
    private static final Map<String, String> NO_ENV = Map.of();

    private static AgentOptions parse(String args) throws OptionException {
        return AgentOptions.parse(args, NO_ENV);
    }

    @Test
    void nothingIsMitigatedByDefault() throws Exception {
        AgentOptions o = parse("");
        assertThat(o.mitigate("roll-flush")).isFalse();
        assertThat(o.mitigate("prefetch")).isFalse();
        assertThat(o.ignored()).isEmpty();
        assertThat(o.rollFlushMaxPending()).isEqualTo(1000);
        assertThat(o.prefetchMaxBytes()).isEqualTo(1L << 20);
        assertThat(o.prefetchMinBytes()).isEqualTo(4096);
        assertThat(o.mitigate("hole-repair")).as("the detection alone changes nothing").isFalse();
        assertThat(o.holeRepairQuarantineDir()).isNull();
    }

    @Test
    void holeRepairIsAskedForByNameWithItsQuarantineDir() throws Exception {
        AgentOptions o = parse("mitigate=hole-repair,mitigate.hole-repair.quarantine.dir=/data/quarantine");
        assertThat(o.mitigate("hole-repair")).isTrue();
        assertThat(o.mitigate("roll-flush")).isFalse();
        assertThat(o.holeRepairQuarantineDir()).isEqualTo("/data/quarantine");
        assertThatThrownBy(() -> parse("mitigate=hole-repiar"))
            .hasMessageContaining("did you mean 'hole-repair'");
    }

    @Test
    void eitherOrBothAsAListContinuedAfterCommas() throws Exception {
        AgentOptions both = parse("mitigate=roll-flush,prefetch,prometheus=9405");
        assertThat(both.mitigate("roll-flush")).isTrue();
        assertThat(both.mitigate("prefetch")).isTrue();
        assertThat(both.prometheus().port()).isEqualTo(9405);
        AgentOptions one = parse("mitigate=prefetch");
        assertThat(one.mitigate("prefetch")).isTrue();
        assertThat(one.mitigate("roll-flush")).isFalse();
        assertThat(parse("mitigate=none").mitigate("roll-flush")).isFalse();
        assertThat(AgentOptions.parse("", Map.of("STALLSCOPE_MITIGATE", "roll-flush")).mitigate("roll-flush")).isTrue();
    }

    @Test
    void unknownMitigationIsNamedWithTheNearestOne() {
        assertThatThrownBy(() -> parse("mitigate=roll-flsh"))
            .hasMessageContaining("unknown mitigation 'roll-flsh'").hasMessageContaining("did you mean 'roll-flush'");
        assertThatThrownBy(() -> parse("mitigate=roll-flush,prefech")).hasMessageContaining("'prefech'");
    }

    /**
     * The removed segment-flush delay (it lost acknowledged records on a power cut): a broker that still sets
     * it keeps the agent, strict or not, and the start-up line says it was ignored and why.
     */
    @Test
    void theRemovedSegmentFlushDelayIsIgnoredWithItsReasonNotRefused() throws Exception {
        for (AgentOptions o : new AgentOptions[] {
            parse("mitigate=roll-flush,mitigate.segment.flush.delay=20s,strict=true"),
            AgentOptions.parse("strict=true", Map.of("STALLSCOPE_MITIGATE_SEGMENT_FLUSH_DELAY", "20s"))}) {
            assertThat(o.strict()).isTrue();
            assertThat(o.ignored()).singleElement().asString()
                .startsWith("ignored mitigate.segment.flush.delay (")
                .contains("removed: on a power cut it lost acknowledged records");
        }
        assertThat(parse("mitigate.segment.flush.delay=20s,mitigate=roll-flush").mitigate("roll-flush")).isTrue();
        assertThatThrownBy(() -> parse("mitigate.segment.flush.dely=20s")).hasMessageContaining("unknown option");
    }

    @Test
    void prefetchBytesAreBounded() throws Exception {
        assertThat(parse("mitigate.prefetch.max.bytes=4KiB").prefetchMaxBytes()).isEqualTo(4096);
        assertThat(parse("mitigate.prefetch.max.bytes=64MiB").prefetchMaxBytes()).isEqualTo(64L << 20);
        assertThat(parse("mitigate.prefetch.max.bytes=65536").prefetchMaxBytes()).isEqualTo(65536);
        assertThat(parse("mitigate.prefetch.max.bytes=2m").prefetchMaxBytes()).isEqualTo(2L << 20);
        assertThatThrownBy(() -> parse("mitigate.prefetch.max.bytes=4095")).hasMessageContaining("from 4KiB to 64MiB");
        assertThatThrownBy(() -> parse("mitigate.prefetch.max.bytes=65MiB")).hasMessageContaining("from 4KiB to 64MiB");
        assertThatThrownBy(() -> parse("mitigate.prefetch.max.bytes=lots")).hasMessageContaining("expected a size");
        assertThatThrownBy(() -> parse("mitigate.prefetch.max.bytes=99999999999999GiB")).hasMessageContaining("expected a size");
        assertThat(parse("mitigate.prefetch.min.bytes=0").prefetchMinBytes()).isZero();
        assertThatThrownBy(() -> parse("mitigate.prefetch.min.bytes=2MiB")).hasMessageContaining("from 0 to 1MiB");
    }

    @Test
    void maxPendingSnapshotsIsBounded() throws Exception {
        assertThat(parse("mitigate.roll.flush.max.pending=1").rollFlushMaxPending()).isEqualTo(1);
        assertThat(parse("mitigate.roll.flush.max.pending=100000").rollFlushMaxPending()).isEqualTo(100000);
        assertThatThrownBy(() -> parse("mitigate.roll.flush.max.pending=0")).hasMessageContaining("from 1 to 100000");
        assertThatThrownBy(() -> parse("mitigate.roll.flush.max.pending=100001")).hasMessageContaining("from 1 to 100000");
    }
}
