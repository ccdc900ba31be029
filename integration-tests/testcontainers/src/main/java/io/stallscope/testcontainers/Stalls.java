package io.stallscope.testcontainers;

import java.util.List;

/** Entry point for differences: {@code Stalls.between(before, after)} is what happened in between. */
public final class Stalls {
    private Stalls() {
    }

    /** The ops between two snapshots of the same broker, {@code before} taken first. */
    public static StallView between(MetricsSnapshot before, MetricsSnapshot after) {
        if (after.takenAt().isBefore(before.takenAt())) {
            throw new IllegalArgumentException("between(before, after): the first snapshot (" + before.describe()
                    + ") was taken after the second (" + after.describe() + ")");
        }
        return new SnapshotDiff(before, after);
    }

    private static final class SnapshotDiff implements StallView {
        private final MetricsSnapshot before;
        private final MetricsSnapshot after;

        SnapshotDiff(MetricsSnapshot before, MetricsSnapshot after) {
            this.before = before;
            this.after = after;
        }

        @Override
        public OpHistogram histogram(Selection selection) {
            return after.histogram(selection).minus(before.histogram(selection));
        }

        @Override
        public List<String> slowOpLines() {
            List<String> all = after.slowOpLines();
            int skip = Math.min(before.slowOpLines().size(), all.size());
            return all.subList(skip, all.size());
        }

        @Override
        public String describe() {
            return "between " + before.describe() + " and " + after.takenAt();
        }
    }
}
