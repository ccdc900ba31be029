package io.stallscope.analyzer.model;

/**
 * A recorded wait for a lock: jdk.JavaMonitorEnter (monitor) or jdk.ThreadPark (park).
 * {@code previousOwner} is a thread id or -1 when the recording does not say (async-profiler, ThreadPark).
 */
public record LockEvent(Kind kind, long start, long end, int thread, int stack, String lockClass, long address,
                        int previousOwner) {
    public enum Kind { MONITOR, PARK }
}
