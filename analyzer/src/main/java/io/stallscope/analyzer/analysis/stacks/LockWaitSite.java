package io.stallscope.analyzer.analysis.stacks;

/**
 * Where a sampled stack waits for a lock: the frame that asked for it ({@code siteFrame}, an index into the
 * stack) and what kind of lock ("monitor", "ReentrantLock", ...).
 */
public record LockWaitSite(int siteFrame, String lockType) {
}
