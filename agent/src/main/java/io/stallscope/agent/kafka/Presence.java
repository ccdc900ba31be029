package io.stallscope.agent.kafka;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The Kafka versions where a target is expected, one or more ranges [from, before), and why it is absent outside
 * them. An absence inside them is a mismatch worth telling the operator; outside, it is Kafka's history.
 */
public final class Presence {
    static final Presence ALWAYS = new Presence(Collections.singletonList(new String[] {null, null}), null);

    /** Each range: {from or null, before or null}. */
    private final List<String[]> ranges;
    private final String whyAbsent;

    private Presence(List<String[]> ranges, String whyAbsent) {
        this.ranges = ranges;
        this.whyAbsent = whyAbsent;
    }

    static Presence between(String from, String before, String whyAbsent) {
        return new Presence(Collections.singletonList(new String[] {from, before}), whyAbsent);
    }

    /**
     * A fix backported to some release lines only: {@code bounds} are the ranges' ends in pairs, e.g.
     * {"3.9.2", "4.0.0", "4.0.2", "4.1.0", "4.1.1", null}.
     */
    static Presence inRanges(String whyAbsent, String... bounds) {
        if (bounds.length == 0 || bounds.length % 2 != 0) {
            throw new IllegalArgumentException("ranges come in pairs: " + Arrays.toString(bounds));
        }
        List<String[]> ranges = new ArrayList<>();
        for (int i = 0; i < bounds.length; i += 2) {
            ranges.add(new String[] {bounds[i], bounds[i + 1]});
        }
        return new Presence(Collections.unmodifiableList(ranges), whyAbsent);
    }

    /** Whether a Kafka of this version should have the target; an unknown version is given the benefit. */
    public boolean expectedIn(String version) {
        if (!KafkaReleases.isKnown(version)) {
            return true;
        }
        for (String[] r : ranges) {
            if ((r[0] == null || KafkaReleases.compare(version, r[0]) >= 0)
                && (r[1] == null || KafkaReleases.compare(version, r[1]) < 0)) {
                return true;
            }
        }
        return false;
    }

    /** Whether some supported version lacks it by design. */
    public boolean canBeAbsent() {
        return whyAbsent != null;
    }

    /**
     * When and why the target is absent, read as "absence expected before Kafka 3.7: there the snapshot
     * fsync is part of snapshot_write, on the roll" (the start-up line puts it after the op's name).
     */
    public String absenceNote() {
        if (ranges.size() > 1) {
            return "expected outside Kafka " + this + ": " + whyAbsent;
        }
        String from = ranges.get(0)[0];
        String before = ranges.get(0)[1];
        String when;
        if (from != null && before != null) {
            when = "expected before Kafka " + from + " and from " + before;
        } else if (from != null) {
            when = "expected before Kafka " + from;
        } else {
            when = "expected from Kafka " + before;
        }
        return when + ": " + whyAbsent;
    }

    /** "all versions", "3.7..", "3.9.2..4.0.0, 4.0.2..4.1.0, 4.1.1..". */
    @Override
    public String toString() {
        List<String> out = new ArrayList<>();
        for (String[] r : ranges) {
            if (r[0] == null && r[1] == null) {
                return "all versions";
            }
            out.add((r[0] == null ? "" : r[0]) + ".." + (r[1] == null ? "" : r[1]));
        }
        return String.join(", ", out);
    }
}
