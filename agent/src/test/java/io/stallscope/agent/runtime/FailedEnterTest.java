package io.stallscope.agent.runtime;

import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.OpId;
import io.stallscope.agent.instrument.advice.ThisAdvice;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An enter that fails leaves its exit inactive: no op is recorded for it (it would last as long as the JVM has run)
 * and the op it ran inside stays open on the thread.
 */
class FailedEnterTest extends UsesHooks {
    private static final String LOG = "/var/lib/kafka/data/orders-0";

    /** What the test weaves the real exit advice into. */
    public static class Snapshot {
        public void write() {
            // the method's body does not matter, only the advice around it
        }
    }

    @Test
    void anExitAdviceWhoseEnterAdviceThrewRecordsNothingAndLeavesTheEnclosingOpOpen() throws Exception {
        Object snapshot = new ByteBuddy().redefine(Snapshot.class).name(Snapshot.class.getName() + "Woven")
            .visit(Advice.withCustomMapping().bind(OpId.class, Op.SNAPSHOT_WRITE)
                .to(FailingEnterAdvice.class, ThisAdvice.class).on(named("write")))
            .make().load(getClass().getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded()
            .getConstructor().newInstance();
        List<String> recorded = Collections.synchronizedList(new ArrayList<>());
        Hooks.install(ListSink.of(recorded));

        long roll = Hooks.enter(Op.LOG_ROLL, LOG);
        snapshot.getClass().getMethod("write").invoke(snapshot);

        assertThat(recorded).as("nothing recorded for the op whose enter failed").isEmpty();
        assertThat(Traces.opsOf(Thread.currentThread())).containsExactly("log_roll 0 running " + LOG);
        Hooks.exit(Op.LOG_ROLL, roll, LOG, -1, null);
        assertThat(recorded).hasSize(1);
        assertThat(recorded.get(0)).startsWith("log_roll ");
    }

    @Test
    void anEnterThatThrowsIsCountedAndItsExitIsInactive() {
        List<String> recorded = Collections.synchronizedList(new ArrayList<>());
        Hooks.install(ListSink.of(recorded));
        long roll = Hooks.enter(Op.LOG_ROLL, LOG);

        int noSuchOp = Op.COUNT; // fails inside enter, as an OutOfMemoryError there would
        long start = Hooks.enter(noSuchOp, LOG);
        Hooks.exit(noSuchOp, start, LOG, -1, null);

        assertThat(start).isEqualTo(Hooks.INACTIVE);
        assertThat(recorded).containsExactly("failed " + noSuchOp + ": ArrayIndexOutOfBoundsException");
        assertThat(Traces.opsOf(Thread.currentThread())).containsExactly("log_roll 0 running " + LOG);
        Hooks.exit(Op.LOG_ROLL, roll, LOG, -1, null);
        assertThat(Traces.opsOf(Thread.currentThread())).as("nothing open").noneMatch(op -> op.contains(" running "));
    }
}
