package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.SegmentFlushDelayHooks;
import net.bytebuddy.asm.Advice;

import java.util.concurrent.TimeUnit;

/** On the Java scheduler's schedule(String, Runnable, long delayMs, long periodMs), 3.5+ (KafkaTargets.SCHEDULER_SCHEDULE). */
public final class ScheduleDelayAdvice {
    private ScheduleDelayAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.Argument(0) String name,
                             @Advice.Argument(value = 2, readOnly = false) long delay,
                             @Advice.Argument(3) long period) {
        delay = SegmentFlushDelayHooks.delay(name, delay, period, TimeUnit.MILLISECONDS);
    }
}
