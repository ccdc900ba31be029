package io.stallscope.agent.holes;

import java.util.Arrays;
import java.util.List;

/**
 * The one rule for what is a hole, shared by the live detection at recovery and the offline check-logs. Kafka's own
 * writes never leave a gap between one segment's last offset and the next segment's base, except where records are
 * removed on purpose: compaction (and the gaps a follower copies from a compacted leader), anything below the log
 * start offset (retention, DeleteRecords), and the internal logs Kafka compacts or snapshots. Aborted transactions and
 * control batches keep their offsets; an idle log's empty rolled segment ends at its base, which is the next base;
 * truncation after a leader-epoch change deletes the later segments instead of leaving them behind a gap.
 */
public final class HoleRule {
    /** Compacted by Kafka (offsets, transactions) or trimmed to a snapshot (KRaft's metadata log). */
    static final List<String> INTERNAL = Arrays.asList("__consumer_offsets", "__transaction_state", "__cluster_metadata");

    private HoleRule() {
    }

    /**
     * Why gaps in the log in this partition directory cannot be judged, or null when a gap there is a hole. Directories
     * Kafka is moving (-future), deleting (-delete) or has set aside (-stray) are not the log it serves.
     */
    public static String unverifiable(String dirName, boolean compacted) {
        for (String suffix : new String[] {"-future", "-delete", "-stray"}) {
            if (dirName.endsWith(suffix)) {
                return "a " + suffix.substring(1) + " directory, not the log Kafka serves";
            }
        }
        String topic = PartitionDirs.topicOf(dirName);
        if (topic == null) {
            return "not a partition directory";
        }
        if (INTERNAL.contains(topic)) {
            return topic + " is compacted or trimmed by Kafka itself: its gaps are legitimate";
        }
        if (compacted) {
            return "compacted: its gaps are legitimate";
        }
        return null;
    }

    /**
     * The hole between two consecutive segments of a log that {@link #unverifiable} accepts, or null. Offsets below
     * logStartOffset (-1 if unknown) are never missing: Kafka does not serve them anyway.
     */
    public static Hole between(String partition, long logStartOffset, Segment before, Segment after) {
        long first = Math.max(before.nextOffset(), logStartOffset);
        if (after.baseOffset() <= first) {
            return null;
        }
        return new Hole(partition, before, after, first);
    }
}
