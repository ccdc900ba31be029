package io.stallscope.agent.holes;

import io.stallscope.agent.mitigate.MitigationMetrics;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * mitigate=hole-repair: sends a log with a hole down Kafka's own corrupt-batch path. Inside recoverLog a positive
 * return from recoverSegment makes Kafka delete every later segment, and the load then cuts the leader-epoch cache to
 * the new log end, rebuilds the producer state and the high watermark is clamped to it; a replica fetches the missing
 * offsets again from the leader. Before that value is handed back the files Kafka will delete are hard-linked into a
 * quarantine directory, by default one inside the partition dir (see {@link #act}). When
 * anything is not certain (a compacted or unknown config, a log start inside the gap, a link that fails) Kafka's own
 * value goes back and the log stays as stock Kafka keeps it.
 */
final class HoleRepair {
    static final String NAME = "hole-repair";
    /** The default quarantine, a sub-directory of the partition dir: PARTITIONDIR/stallscope-quarantine-MILLIS. */
    static final String QUARANTINE_PREFIX = "stallscope-quarantine-";
    /** Kafka acts only on "> 0"; the bytes are not otherwise used. */
    static final int TRUNCATE = 1;

    private final Path quarantineRoot;
    /** The broker's log.dirs as its command line names them (best effort): no quarantine goes inside one. */
    private final List<Path> logDirRoots;
    private final Consumer<String> warn;
    private final MitigationMetrics metrics;
    private final LongSupplier clock;

    /** quarantineRoot null: inside each partition dir, as stallscope-quarantine-MILLIS. */
    HoleRepair(Path quarantineRoot, List<Path> logDirRoots, Consumer<String> warn, MitigationMetrics metrics,
               LongSupplier clock) {
        this.quarantineRoot = quarantineRoot;
        this.logDirRoots = logDirRoots;
        this.warn = warn;
        this.metrics = metrics;
        this.clock = clock;
    }

    /** The value recoverSegment returns to recoverLog: TRUNCATE once the quarantine holds the later segments. */
    int repair(HoleDetector.Found found, int kafkas) {
        try {
            return act(found, kafkas);
        } catch (Throwable t) {
            metrics.failed(NAME, t);
            return kafkas;
        }
    }

    private int act(HoleDetector.Found found, int kafkas) {
        Hole hole = found.hole;
        if (kafkas != 0 || !found.judgedOnKafkasOwnState || hole.firstMissing() != hole.before().nextOffset()) {
            // Kafka truncates already, or the log's config, log start or end were not Kafka's own: stock behaviour
            metrics.event(NAME, "skipped_unproven");
            return kafkas;
        }
        String stock = "; the log stays as stock Kafka keeps it, serving past the hole";
        Path target;
        Path inside = null;
        if (quarantineRoot == null) {
            // In the partition dir itself: always the segments' file system, so a link cannot fail across devices
            // (a log dir is often a mount point of its own), and every Kafka 2.8-4.4 loader reads only the files of a
            // partition dir, skipping its sub-directories. It goes with the partition when Kafka deletes or moves it.
            target = found.partitionDir.resolve(QUARANTINE_PREFIX + clock.getAsLong());
        } else {
            Path logDir = found.partitionDir.getParent().toAbsolutePath().normalize();
            target = quarantineRoot.toAbsolutePath().normalize().resolve(hole.partition() + "-" + clock.getAsLong());
            inside = target.startsWith(logDir) ? logDir : null;
            for (Path other : logDirRoots) {
                Path configured = other.toAbsolutePath().normalize();
                inside = inside == null && target.startsWith(configured) ? configured : inside;
            }
        }
        if (inside != null) {
            metrics.event(NAME, "skipped_quarantine_in_log_dir");
            warn.accept("hole-repair not done in " + hole.partition() + ": the quarantine " + target + " is inside the"
                + " log dir " + inside + ", where Kafka's loadLogs fails on it" + stock);
            return kafkas;
        }
        List<Path> linked;
        try {
            linked = Quarantine.link(found.partitionDir, hole.firstMissing(), target);
        } catch (IOException | RuntimeException e) {
            metrics.event(NAME, "link_failed");
            warn.accept("hole-repair not done in " + hole.partition() + ": could not hard-link the later segments into "
                + target + " (" + e + (quarantineRoot == null ? "" : "; a hard link needs the same file system:"
                + " mitigate.hole-repair.quarantine.dir must be on the log dir's, outside it, or unset") + ")" + stock);
            return kafkas;
        }
        metrics.event(NAME, "repaired");
        warn.accept("hole-repair: " + hole.partition() + " truncated to offset " + hole.firstMissing() + " through"
            + " Kafka's corrupt-batch path (Kafka deletes the segments from " + hole.after().baseOffset() + " on, a replica"
            + " fetches offsets " + hole.firstMissing() + " on again from the leader); " + linked.size() + " files hard-linked"
            + " into " + target + " first. The price: where no other replica holds these offsets (RF=1, or every replica"
            + " cut) the records after the hole are dropped, which stock Kafka serves; with unclean leader election on"
            + " the loss can spread");
        return TRUNCATE;
    }
}
