package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.SegmentFlushDelayHooks;
import net.bytebuddy.asm.Advice;

import java.util.concurrent.TimeUnit;

/** On the Scala scheduler's schedule(String, Function0, long delay, long period, TimeUnit), 2.8-3.4 (KafkaTargets.SCALA_SCHEDULER_SCHEDULE). */
public final class ScheduleDelayWithUnitAdvice {
    private ScheduleDelayWithUnitAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Argument(0) String name,
                             @Advice.Argument(value = 2, readOnly = false) long delay,
                             @Advice.Argument(3) long period, @Advice.Argument(4) TimeUnit unit) {
        delay = SegmentFlushDelayHooks.delay(name, delay, period, unit);
    }
}
