package kafka.log;

/**
 * Where the analyzer's tests take a lock as Kafka takes a log's lock: in a method of {@code kafka.log.UnifiedLog}
 * (the analyzer names a lock's topic-partition only when it is taken in Kafka's log classes). Only the class and
 * method names are Kafka's; the real broker's log lock is recorded by integration-tests' BrokerLockRecordingIT.
 */
public final class UnifiedLog {
    private UnifiedLog() {
    }

    /** Runs {@code underLock} holding {@code lock}, as UnifiedLog.append holds the log's lock. */
    public static void append(Object lock, Runnable underLock) {
        synchronized (lock) {
            underLock.run();
        }
    }
}
