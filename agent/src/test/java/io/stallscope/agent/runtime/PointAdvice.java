package io.stallscope.agent.runtime;

import io.stallscope.agent.instrument.InstrumentationPoint;
import io.stallscope.agent.instrument.Points;
import io.stallscope.agent.instrument.advice.OpId;
import io.stallscope.agent.kafka.KafkaTarget;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.asm.AsmVisitorWrapper;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** For tests that weave Kafka's own classes: the points' advice on their catalog entries, as the agent applies it. */
final class PointAdvice {
    private PointAdvice() {
    }

    /** The advice of the one point on each of {@code targets}. */
    static AsmVisitorWrapper[] of(KafkaTarget... targets) {
        List<AsmVisitorWrapper> visitors = new ArrayList<>();
        for (KafkaTarget target : targets) {
            for (InstrumentationPoint p : Points.all()) {
                if (p.target() == target) {
                    visitors.add(Advice.withCustomMapping().bind(OpId.class, p.op()).to(p.advice()).on(target.advisable()));
                }
            }
        }
        assertThat(visitors).as("one point on each target").hasSize(targets.length);
        return visitors.toArray(new AsmVisitorWrapper[0]);
    }
}
