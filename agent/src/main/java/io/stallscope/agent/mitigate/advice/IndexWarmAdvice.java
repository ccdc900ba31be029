package io.stallscope.agent.mitigate.advice;

import io.stallscope.agent.mitigate.IndexWarmHooks;
import net.bytebuddy.asm.Advice;

/**
 * On entering OffsetIndex/TimeIndex.lookup: warm the index first (mitigate=index-warm). Woven by the mitigations'
 * transformer, after the timing points', so it runs before index_lookup's timing begins: a lookup parked here is
 * at a safepoint and is not the one a slow safepoint names.
 */
public final class IndexWarmAdvice {
    private IndexWarmAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@Advice.This Object index) {
        IndexWarmHooks.beforeLookup(index);
    }
}
