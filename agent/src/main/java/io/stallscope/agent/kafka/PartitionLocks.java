package io.stallscope.agent.kafka;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * For the prefetch's self-check (mitigate.prefetch.check.locks): how many of the broker's online
 * partitions have their leaderIsrUpdateLock held, read or write, by the calling thread, and whether it
 * holds ReplicaManager's replicaStateChangeLock (taken by leader/follower changes and StopReplica, which
 * complete waiting fetches). Walks every partition (ReplicaManager's private onlinePartitionsIterator,
 * Partition's private leaderIsrUpdateLock, ReplicaManager's private replicaStateChangeLock, all 2.8 to
 * 4.4), so it is for tests, not for production fetches.
 */
public final class PartitionLocks {
    private static volatile Method iterator;
    private static volatile Method hasNext;
    private static volatile Method next;
    private static volatile Field lock;
    private static volatile Field stateChangeLock;

    private PartitionLocks() {
    }

    public static int heldByCurrentThread(Object replicaManager) throws ReflectiveOperationException {
        if (iterator == null) {
            Method m = replicaManager.getClass().getDeclaredMethod("onlinePartitionsIterator");
            m.setAccessible(true);
            ClassLoader loader = replicaManager.getClass().getClassLoader();
            hasNext = Class.forName("scala.collection.Iterator", false, loader).getMethod("hasNext");
            next = Class.forName("scala.collection.Iterator", false, loader).getMethod("next");
            Field f = Class.forName("kafka.cluster.Partition", false, loader).getDeclaredField("leaderIsrUpdateLock");
            f.setAccessible(true);
            lock = f;
            iterator = m;
        }
        int held = 0;
        Object it = iterator.invoke(replicaManager);
        while ((Boolean) hasNext.invoke(it)) {
            ReentrantReadWriteLock l = (ReentrantReadWriteLock) lock.get(next.invoke(it));
            if (l.getReadHoldCount() > 0 || l.isWriteLockedByCurrentThread()) {
                held++;
            }
        }
        return held;
    }

    public static boolean stateChangeLockHeld(Object replicaManager) throws ReflectiveOperationException {
        if (stateChangeLock == null) {
            Field f = replicaManager.getClass().getDeclaredField("replicaStateChangeLock");
            f.setAccessible(true);
            stateChangeLock = f;
        }
        return Thread.holdsLock(stateChangeLock.get(replicaManager));
    }
}
