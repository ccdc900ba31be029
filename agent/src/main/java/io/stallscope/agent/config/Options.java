package io.stallscope.agent.config;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.model.OpKind;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Every option the agent understands. The README's option table is generated from this list. */
public final class Options {
    public static final String CONFIG = "config";
    public static final String PROMETHEUS = "prometheus";
    public static final String JMX = "jmx";
    public static final String JFR = "jfr";
    public static final String JFR_THRESHOLD = "jfr.threshold";
    public static final String SLOW_THRESHOLD = "slow.threshold";
    public static final String SLOW_LOG_PER_MINUTE = "slow.log.per.minute";
    public static final String OPS = "ops";
    public static final String TOPIC_LABELS = "topic.labels";
    public static final String TOPIC_LABELS_MAX = "topic.labels.max";
    public static final String ACTIVATE_MAIN = "activate.main";
    public static final String CONTROLLER_LISTENERS = "controller.listeners";
    public static final String STRICT = "strict";
    public static final String MITIGATE = "mitigate";
    public static final String MITIGATE_ROLL_FLUSH_MAX_PENDING = "mitigate.roll.flush.max.pending";
    public static final String MITIGATE_PREFETCH_MAX_BYTES = "mitigate.prefetch.max.bytes";
    public static final String MITIGATE_PREFETCH_MIN_BYTES = "mitigate.prefetch.min.bytes";
    public static final String MITIGATE_PREFETCH_MAX_FETCH_BYTES = "mitigate.prefetch.max.fetch.bytes";
    public static final String MITIGATE_PREFETCH_MAX_WAIT = "mitigate.prefetch.max.wait";
    public static final String MITIGATE_PREFETCH_CHECK_LOCKS = "mitigate.prefetch.check.locks";
    public static final String MITIGATE_PREFETCH_AHEAD_BYTES = "mitigate.prefetch.ahead.bytes";
    public static final String MITIGATE_INDEX_WARM_MAX_BYTES = "mitigate.index-warm.max.bytes";
    public static final String MITIGATE_INDEX_WARM_MAX_WAIT = "mitigate.index-warm.max.wait";
    public static final String MITIGATE_HOLE_REPAIR_QUARANTINE_DIR = "mitigate.hole-repair.quarantine.dir";
    public static final String STOP_START_BREAKDOWN = "stop.start.breakdown";
    public static final String STOP_PROGRESS = "stop.progress";
    public static final String SAFEPOINT_TIMING = "safepoint.timing";
    /** Not an op's: a safepoint is the JVM's, timed from its own events (safepoint.timing). */
    public static final String SLOW_THRESHOLD_SAFEPOINT_SYNC = "slow.threshold.safepoint_sync";
    public static final String PROFILE = "profile";
    public static final String PROFILE_DIR = "profile.dir";
    public static final String PROFILE_TRIGGER = "profile.trigger";
    public static final String PROFILE_CHUNK = "profile.chunk";
    public static final String PROFILE_KEEP = "profile.keep";
    public static final String PROFILE_COOLDOWN = "profile.cooldown";
    public static final String PROFILE_MAX_FILES = "profile.max-files";
    public static final String PROFILE_MAX_BYTES = "profile.max-bytes";
    public static final String PROFILE_ENGINE = "profile.engine";
    public static final String PROFILE_INTERVAL = "profile.interval";
    /** The recorders profile.engine= accepts. */
    public static final List<String> PROFILE_ENGINES = List.of("auto", "async-profiler", "jfr");
    /** The mitigations mitigate= accepts. */
    public static final List<String> MITIGATIONS = List.of("roll-flush", "prefetch", "index-warm", "hole-repair");
    /**
     * Options an earlier version took and this one does not, with why: each is ignored with one clause in the
     * start-up line instead of being refused, so that a broker's old setting neither stops it (strict=true)
     * nor leaves it without the agent. Each removal made the broker safer, so ignoring one never weakens it.
     */
    private static final Map<String, String> REMOVED = Map.of(
        "mitigate.segment.flush.delay", "removed: on a power cut it lost acknowledged records behind an offset"
            + " gap that replication does not repair (docs/mitigations.md); the flush after each roll runs as"
            + " Kafka schedules it");

    public static final List<OptionSpec> ALL;
    private static final Map<String, OptionSpec> BY_KEY = new LinkedHashMap<>();

    static {
        List<OptionSpec> all = new ArrayList<>();
        all.add(new OptionSpec(CONFIG, "(none)",
            "A properties file with more options; keys given directly win over the file's.", Values::text));
        all.add(new OptionSpec(PROMETHEUS, "off",
            "Serve Prometheus text format on HOST:PORT (a bare PORT binds 127.0.0.1), or off.", Values::endpoint));
        all.add(new OptionSpec(JMX, "true",
            "Register one MBean per op and thread role under io.stallscope.", Values::bool));
        all.add(new OptionSpec(JFR, "true",
            "Emit a JFR event per op (stallscope.*) when a recording is running.", Values::bool));
        all.add(new OptionSpec(JFR_THRESHOLD, "1ms",
            "Emit JFR events only for ops at least this long; per op: jfr.threshold.OP.", Values::duration));
        all.add(new OptionSpec(SLOW_THRESHOLD, "100ms",
            "Log a slow-operation line for ops at least this long; per op: slow.threshold.OP.", Values::duration));
        all.add(new OptionSpec(SLOW_LOG_PER_MINUTE, "60",
            "At most this many slow-operation lines a minute; the rest are counted and summarised.",
            Values::positiveInt));
        all.add(new OptionSpec(OPS, "all",
            "Which ops to instrument: all, or a list of op names (" + String.join(", ", opNames()) + ").",
            Options::ops));
        all.add(new OptionSpec(TOPIC_LABELS, "false",
            "Add topic and partition labels to the op histograms (more series: see topic.labels.max).",
            Values::bool));
        all.add(new OptionSpec(TOPIC_LABELS_MAX, "100",
            "Most topic-partitions labelled; further ones are reported as topic=\"_other\".", Values::positiveInt));
        all.add(new OptionSpec(ACTIVATE_MAIN, "kafka\\.Kafka",
            "Regex of main classes the agent activates in; it stays silent in every other JVM"
                + " (Kafka's command-line tools, ZooKeeper).", Values::regex));
        all.add(new OptionSpec(CONTROLLER_LISTENERS, "(from server.properties, else CONTROLLER)",
            "Listener names whose network threads count as controller, not network.", Values::list));
        all.add(new OptionSpec(STRICT, "false",
            "Refuse to start the JVM on a bad option instead of starting without the agent.", Values::bool));
        all.add(new OptionSpec(MITIGATE, "none",
            "Mitigations to apply: none, or a list of roll-flush (Kafka 2.8-3.6: the producer-state snapshot"
                + " fsync leaves the roll, as in 3.7), prefetch (warm the page cache for fetches on the"
                + " request handler, not the network thread), index-warm (bring a cold offset or time index into the page"
                + " cache with the looking-up thread parked, so that its page faults never hold a safepoint, and so the"
                + " whole broker, up) and hole-repair (a power-cut hole found at recovery"
                + " truncates the log at it through Kafka's corrupt-batch path, the later segments hard-linked into a"
                + " quarantine first; with no other replica their records are dropped). See Mitigations.",
            Options::mitigations));
        all.add(new OptionSpec(MITIGATE_ROLL_FLUSH_MAX_PENDING, "1000",
            "roll-flush: most snapshot fsyncs waiting for their log's flush (1 to 100000); beyond, they run"
                + " inline as in Kafka.", v -> BoundedValues.intIn(v, 1, 100_000)));
        all.add(new OptionSpec(MITIGATE_PREFETCH_MAX_BYTES, "1MiB",
            "prefetch: most bytes warmed per fetched partition (4KiB to 64MiB); a bigger slice is warmed"
                + " up to this.", v -> BoundedValues.bytesIn(v, 4096, 64L << 20)));
        all.add(new OptionSpec(MITIGATE_PREFETCH_MAX_FETCH_BYTES, "8MiB",
            "prefetch: most bytes warmed per fetch, all its partitions together (4KiB to 256MiB).",
            v -> BoundedValues.bytesIn(v, 4096, 256L << 20)));
        all.add(new OptionSpec(MITIGATE_PREFETCH_MAX_WAIT, "1s",
            "prefetch: longest a request handler waits for one fetch's cold pages (1ms to 1s); past it the network"
                + " thread reads the rest, as without prefetch.",
            v -> BoundedValues.durationIn(v, 1_000_000L, 1_000_000_000L)));
        all.add(new OptionSpec(MITIGATE_PREFETCH_AHEAD_BYTES, "0",
            "prefetch: also warm this many bytes after each fetched slice, on one agent thread, for a reader catching"
                + " up (0 = off, up to 64MiB).", v -> BoundedValues.bytesIn(v, 0, 64L << 20)));
        all.add(new OptionSpec(MITIGATE_PREFETCH_CHECK_LOCKS, "false",
            "prefetch, for tests: before each warm-up, check that the thread holds no partition's leaderIsrUpdateLock"
                + " (counted as event lock_checked or under_partition_lock), nor the replicaStateChangeLock"
                + " (under_state_change_lock), and is none of a purgatory's threads (on_purgatory_thread); count the"
                + " fetch reads skipped as completed from purgatory (from_purgatory); walks every partition, so not for production.",
            Values::bool));
        all.add(new OptionSpec(MITIGATE_PREFETCH_MIN_BYTES, "4KiB",
            "prefetch: slices smaller than this are not warmed (0 to 1MiB).", v -> BoundedValues.bytesIn(v, 0, 1L << 20)));
        all.add(new OptionSpec(MITIGATE_INDEX_WARM_MAX_BYTES, "1MiB",
            "index-warm: indexes with more bytes in use than this are left to Kafka's page faults (4KiB to 64MiB).",
            v -> BoundedValues.bytesIn(v, 4096, 64L << 20)));
        all.add(new OptionSpec(MITIGATE_INDEX_WARM_MAX_WAIT, "10s",
            "index-warm: longest a lookup waits, parked, for its index to come in (1ms to 60s); past it the lookup"
                + " faults on the rest, holding safepoints up as without index-warm. The lookup would wait as long"
                + " in its page fault: the bound is for a disk that does not answer.",
            v -> BoundedValues.durationIn(v, 1_000_000L, 60_000_000_000L)));
        all.add(new OptionSpec(MITIGATE_HOLE_REPAIR_QUARANTINE_DIR, "(PARTITIONDIR/stallscope-quarantine-MILLIS)",
            "hole-repair: where the later segments' files are hard-linked before Kafka deletes them. By default inside"
                + " the partition dir (its file system; Kafka's loaders skip sub-directories there; deleted with the"
                + " partition). A directory given here must be outside every log dir (Kafka refuses a log dir holding a"
                + " directory it cannot parse) and on the log dir's file system (a hard link cannot cross one: then the"
                + " log stays as stock Kafka keeps it).", Values::text));
        all.add(new OptionSpec(STOP_START_BREAKDOWN, "true",
            "Write where the broker's stop and start went (flush, close, checkpoints, loading, recovery, per log dir,"
                + " the slowest logs) to its log and as JFR events. See Stop and start.", Values::bool));
        all.add(new OptionSpec(STOP_PROGRESS, "30s",
            "While a stop is slow, a progress line this often: logs closed, left, and the one closing now"
                + " (up to 1h, 0 = none).", v -> BoundedValues.durationIn(v, 0, 3_600_000_000_000L)));
        all.add(new OptionSpec(SAFEPOINT_TIMING, "auto",
            "Time every safepoint's synchronization, in process, as stallscope_safepoint_sync_seconds, with a slow line"
                + " from slow.threshold.safepoint_sync: every thread of the broker waits that long. jfr: from the JVM's"
                + " own JFR events (Java 14+), per VM operation. counters: from HotSpot's safepoint counters, polled"
                + " every 10 ms (no VM operation), without starting a recording, which on JDKs before 22 costs a broker"
                + " at full speed 5-18% of its throughput. auto: jfr where that costs nothing (JDK 22+, or a recording"
                + " on the command line), else counters. off. See docs/safepoints.md.",
            Values::safepointTiming));
        all.add(new OptionSpec(SLOW_THRESHOLD_SAFEPOINT_SYNC, "slow.threshold",
            "Slow-line threshold for a safepoint's synchronization (time to safepoint).", Values::duration));
        all.add(new OptionSpec(PROFILE, "off",
            "Record continuously (wall-clock, per thread) and keep the seconds around each op slower than"
                + " profile.trigger as one JFR file in profile.dir. See Capturing a stall.", Values::bool));
        all.add(new OptionSpec(PROFILE_DIR, "(kafka.logs.dir/stallscope-captures, else java.io.tmpdir/stallscope-captures-USER)",
            "Directory for capture files (created 0700 if missing); the rolling chunks live in a private"
                + " subdirectory of it.", Values::text));
        all.add(new OptionSpec(PROFILE_TRIGGER, "slow.threshold",
            "An op at least this long triggers a capture (1ms to 1h); default: each op's slow-operation threshold.",
            v -> BoundedValues.durationIn(v, 1_000_000L, 3_600_000_000_000L)));
        all.add(new OptionSpec(PROFILE_CHUNK, "5s",
            "Length of one recording chunk (1s to 60s); a capture holds the chunks around the stall.",
            v -> BoundedValues.durationIn(v, 1_000_000_000L, 60_000_000_000L)));
        all.add(new OptionSpec(PROFILE_KEEP, "3",
            "Chunks kept while waiting for a stall (2 to 20): how far back a capture reaches.",
            v -> BoundedValues.intIn(v, 2, 20)));
        all.add(new OptionSpec(PROFILE_COOLDOWN, "60s",
            "Least time between two captures (0 to 1h); stalls meanwhile are only counted.",
            v -> BoundedValues.durationIn(v, 0, 3_600_000_000_000L)));
        all.add(new OptionSpec(PROFILE_MAX_FILES, "20",
            "Most capture files in profile.dir (1 to 10000); then new captures are refused, none deleted.",
            v -> BoundedValues.intIn(v, 1, 10_000)));
        all.add(new OptionSpec(PROFILE_MAX_BYTES, "1GiB",
            "Most bytes of capture files in profile.dir (1KiB to 1024GiB); then new captures are refused.",
            v -> BoundedValues.bytesIn(v, 1024, 1L << 40)));
        all.add(new OptionSpec(PROFILE_ENGINE, "auto",
            "Recorder: auto (async-profiler, else JDK Flight Recorder), async-profiler or jfr.",
            Options::profileEngine));
        all.add(new OptionSpec(PROFILE_INTERVAL, "50ms",
            "Wall-clock sampling interval (1ms to 1s); JDK Flight Recorder samples at its own 20 ms.",
            v -> BoundedValues.durationIn(v, 1_000_000L, 1_000_000_000L)));
        for (String op : opNames()) {
            all.add(new OptionSpec(SLOW_THRESHOLD + "." + op, "slow.threshold",
                "Slow-operation threshold for " + op + ".", Values::duration));
            all.add(new OptionSpec(JFR_THRESHOLD + "." + op, "jfr.threshold",
                "JFR event threshold for " + op + ".", Values::duration));
        }
        for (OptionSpec spec : all) {
            BY_KEY.put(spec.key(), spec);
        }
        ALL = Collections.unmodifiableList(all);
    }

    private Options() {
    }

    static OptionSpec spec(String key) {
        return BY_KEY.get(key);
    }

    static Iterable<String> keys() {
        return BY_KEY.keySet();
    }

    /** Why a removed option is no longer taken; null for any other key. */
    static String removed(String key) {
        return REMOVED.get(key);
    }

    static Iterable<String> removedKeys() {
        return REMOVED.keySet();
    }

    public static List<String> opNames() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < Op.COUNT; i++) {
            names.add(OpKind.name(i));
        }
        return names;
    }

    private static Object mitigations(String v) {
        if (v.equalsIgnoreCase("none")) {
            return List.of();
        }
        List<String> chosen = Values.list(v);
        for (String m : chosen) {
            if (!MITIGATIONS.contains(m)) {
                String near = Suggest.nearest(m, MITIGATIONS);
                throw new IllegalArgumentException("unknown mitigation '" + m + "'"
                    + (near == null ? "" : " (did you mean '" + near + "'?)"));
            }
        }
        return chosen;
    }

    private static Object profileEngine(String v) {
        String engine = v.toLowerCase(java.util.Locale.ROOT);
        if (!PROFILE_ENGINES.contains(engine)) {
            String near = Suggest.nearest(v, PROFILE_ENGINES);
            throw new IllegalArgumentException("expected one of " + String.join(", ", PROFILE_ENGINES)
                + (near == null ? "" : " (did you mean '" + near + "'?)"));
        }
        return engine;
    }

    private static Object ops(String v) {
        if (v.equalsIgnoreCase("all")) {
            return opNames();
        }
        List<String> ops = Values.list(v);
        for (String op : ops) {
            if (OpKind.byLabel(op) == null) {
                String near = Suggest.nearest(op, opNames());
                throw new IllegalArgumentException("unknown op '" + op + "'"
                    + (near == null ? "" : " (did you mean '" + near + "'?)"));
            }
        }
        return ops;
    }
}
