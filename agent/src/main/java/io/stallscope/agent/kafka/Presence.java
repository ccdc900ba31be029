package io.stallscope.agent.kafka;

/**
 * The Kafka versions where a target is expected, [from, before), and why it is absent outside them. An
 * absence inside the range is a mismatch worth telling the operator; outside it, it is Kafka's history.
 */
public final class Presence {
    static final Presence ALWAYS = new Presence(null, null, null);

    private final String from;
    private final String before;
    private final String whyAbsent;

    private Presence(String from, String before, String whyAbsent) {
        this.from = from;
        this.before = before;
        this.whyAbsent = whyAbsent;
    }

    static Presence between(String from, String before, String whyAbsent) {
        return new Presence(from, before, whyAbsent);
    }

    /** Whether a Kafka of this version should have the target; an unknown version is given the benefit. */
    public boolean expectedIn(String version) {
        if (!KafkaReleases.isKnown(version)) {
            return true;
        }
        return (from == null || KafkaReleases.compare(version, from) >= 0)
            && (before == null || KafkaReleases.compare(version, before) < 0);
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

    @Override
    public String toString() {
        if (from == null && before == null) {
            return "all versions";
        }
        return (from == null ? "" : from) + ".." + (before == null ? "" : before);
    }
}
