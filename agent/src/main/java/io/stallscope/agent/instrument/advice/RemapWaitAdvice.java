package io.stallscope.agent.instrument.advice;

import io.stallscope.agent.bootstrap.Hooks;
import net.bytebuddy.asm.Advice;

import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Enter-only advice on AbstractIndex.inRemapReadLock: times the lookup's wait for the remap lock when a resize or a
 * close holds it or is queued for it ({@link Hooks#awaitShared}). Nothing spans the method: the lock is taken and
 * released inside the advice, so a failure here can leave no lock held.
 */
public final class RemapWaitAdvice {
    private RemapWaitAdvice() {
    }

    @Advice.OnMethodEnter(suppress = Throwable.class)
    public static void enter(@OpId int op, @Advice.This Object index,
                             @Advice.FieldValue("remapLock") ReentrantReadWriteLock remapLock) {
        Hooks.awaitShared(op, index, remapLock);
    }
}
