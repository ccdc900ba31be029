package io.stallscope.agent.holes;

/**
 * Offsets missing between two consecutive segments of a log that cannot legitimately have a gap: what a power cut
 * leaves when the next segment's name reached the disk before the closed segment's data. The same sentence goes to
 * the broker's log and to check-logs.
 */
public final class Hole {
    private final String partition;
    private final Segment before;
    private final Segment after;
    private final long firstMissing;

    Hole(String partition, Segment before, Segment after, long firstMissing) {
        this.partition = partition;
        this.before = before;
        this.after = after;
        this.firstMissing = firstMissing;
    }

    public String partition() {
        return partition;
    }

    public long firstMissing() {
        return firstMissing;
    }

    /** Inclusive. */
    public long lastMissing() {
        return after.baseOffset() - 1;
    }

    public long missing() {
        return after.baseOffset() - firstMissing;
    }

    public Segment before() {
        return before;
    }

    public Segment after() {
        return after;
    }

    public String describe() {
        return "hole in " + partition + ": offsets " + firstMissing + "-" + lastMissing() + " (" + missing()
            + " offsets) missing between " + before + " and " + after + " in " + before.file().getParent()
            + "; Kafka serves past it (consumers skip these offsets silently) and no follower refetches it";
    }

    @Override
    public String toString() {
        return describe();
    }
}
