package io.stallscope.analyzer.analysis.waits;

/**
 * One thread waiting for one lock over [start, end]: from a recorded lock event or from consecutive samples.
 * {@code siteMethod} is the method that asked for the lock; holders are searched for inside it.
 */
public final class Wait {
    public final int file;
    public final int thread;
    public final long start;
    public long end;
    public String lockKey;
    public String lockLabel;
    public final String lockType;
    public final String siteMethod;
    public final String siteLabel;
    public final int stack;
    public final boolean recorded;
    public final int recordedOwner;
    public Holder holder;
    /** For a wait inferred from samples, how many samples show it (its evidence); 0 for a recorded one. */
    public int samples;

    public Wait(int file, int thread, long start, long end, String lockKey, String lockLabel, String lockType,
                String siteMethod, String siteLabel, int stack, boolean recorded, int recordedOwner) {
        this.file = file;
        this.thread = thread;
        this.start = start;
        this.end = end;
        this.lockKey = lockKey;
        this.lockLabel = lockLabel;
        this.lockType = lockType;
        this.siteMethod = siteMethod;
        this.siteLabel = siteLabel;
        this.stack = stack;
        this.recorded = recorded;
        this.recordedOwner = recordedOwner;
    }

    /** "recorded" (a lock event) or "inferred" (from samples). */
    public String source() {
        return recorded ? Holder.RECORDED : Holder.INFERRED;
    }

    public long duration() {
        return Math.max(0, end - start);
    }
}
