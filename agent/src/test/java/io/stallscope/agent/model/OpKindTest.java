package io.stallscope.agent.model;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.InstrumentationPoint;
import io.stallscope.agent.instrument.Points;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class OpKindTest {
    /** Advice carries Op's int constants; every array and name is indexed by OpKind's ordinal. */
    @Test
    void theBootstrapIdsAreTheDeclarationsOrdinals() throws Exception {
        Set<String> constants = new HashSet<>();
        for (Field f : Op.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class && !f.getName().equals("COUNT")) {
                constants.add(f.getName());
                assertThat(OpKind.valueOf(f.getName()).id()).as(f.getName()).isEqualTo(f.getInt(null));
            }
        }
        assertThat(constants).hasSize(OpKind.count());
        assertThat(Op.COUNT).isEqualTo(OpKind.count());
    }

    @Test
    void everyOpHasOnePointAndDistinctNames() {
        Set<String> labels = new HashSet<>();
        Set<String> events = new HashSet<>();
        for (OpKind k : OpKind.values()) {
            assertThat(labels.add(k.label())).isTrue();
            assertThat(events.add(k.eventName())).isTrue();
            assertThat(k.eventName()).startsWith("stallscope.");
            assertThat(OpKind.byLabel(k.label())).isSameAs(k);
            assertThat(k.roles()).isNotEmpty();
        }
        int i = 0;
        for (InstrumentationPoint p : Points.all()) {
            if (p.timed()) {
                assertThat(i).as("the timing points first, one per op in op order").isLessThan(OpKind.count());
                assertThat(p.op()).isEqualTo(i++);
                assertThat(p.opName()).isEqualTo(OpKind.name(p.op()));
            } else {
                // a point that times nothing of its own (it counts, or ends another point's waits): after every op's,
                // named apart from every op, going with an op that has a point
                assertThat(i).as(p.opName() + " after the timing points").isEqualTo(OpKind.count());
                assertThat(labels).doesNotContain(p.opName());
                assertThat(p.op()).isBetween(0, OpKind.count() - 1);
            }
        }
        assertThat(i).isEqualTo(OpKind.count());
        assertThat(OpKind.byLabel("no_such_op")).isNull();
    }
}
