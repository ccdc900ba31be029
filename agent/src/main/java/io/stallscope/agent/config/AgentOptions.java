package io.stallscope.agent.config;

import io.stallscope.agent.model.OpKind;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The agent's settings, from (lowest to highest precedence) STALLSCOPE_* environment variables,
 * the properties file named by {@code config=}, and the agent argument's key=value pairs.
 */
public final class AgentOptions {
    private static final String ENV_PREFIX = "STALLSCOPE_";

    private final Map<String, Object> values;
    private final Map<String, String> sources;
    private final List<String> ignored;

    private AgentOptions(Map<String, Object> values, Map<String, String> sources, List<String> ignored) {
        this.values = values;
        this.sources = sources;
        this.ignored = ignored;
    }

    public static AgentOptions defaults() {
        try {
            return parse("", Collections.emptyMap());
        } catch (OptionException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @param agentArgs the -javaagent argument: key=value pairs separated by commas; a piece without
     *                  '=' continues the list value before it (ops=segment_flush,records_append)
     */
    public static AgentOptions parse(String agentArgs, Map<String, String> env) throws OptionException {
        Map<String, String> raw = new LinkedHashMap<>();
        Map<String, String> sources = new LinkedHashMap<>();
        List<String> errors = new ArrayList<>();
        List<String> ignored = new ArrayList<>();

        for (Map.Entry<String, String> e : env.entrySet()) {
            if (e.getKey().startsWith(ENV_PREFIX) && !e.getKey().equals("STALLSCOPE_HOME")) {
                String key = keyForEnv(e.getKey().substring(ENV_PREFIX.length()));
                if (key == null) {
                    // not refused: the prefix is not ours alone (Kubernetes gives every pod STALLSCOPE_SERVICE_HOST
                    // when a Service is named stallscope), and a refusal would leave the broker without the agent,
                    // or with strict=true not started at all. The value is never echoed: it may be anything.
                    ignored.add("ignored environment " + e.getKey() + ": not an option" + nearest(e.getKey()
                        .substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.')));
                } else {
                    raw.put(key, e.getValue());
                    sources.put(key, "environment " + e.getKey());
                }
            }
        }
        Map<String, String> fromArgs = splitArgs(agentArgs == null ? "" : agentArgs, errors);
        String configFile = fromArgs.containsKey(Options.CONFIG) ? fromArgs.get(Options.CONFIG) : raw.get(Options.CONFIG);
        if (configFile != null && !configFile.isEmpty()) {
            Properties file = new Properties();
            Path path = Paths.get(configFile);
            try (InputStream in = Files.newInputStream(path)) {
                file.load(in);
                for (String key : file.stringPropertyNames()) {
                    raw.put(key, file.getProperty(key));
                    sources.put(key, "file " + configFile);
                }
            } catch (IOException e) {
                errors.add("cannot read config file '" + configFile + "': " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
            }
        }
        for (Map.Entry<String, String> e : fromArgs.entrySet()) {
            raw.put(e.getKey(), e.getValue());
            sources.put(e.getKey(), "agent argument");
        }

        Map<String, Object> values = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : raw.entrySet()) {
            OptionSpec spec = Options.spec(e.getKey());
            String removed = Options.removed(e.getKey());
            if (removed != null) {
                ignored.add("ignored " + e.getKey() + " (" + sources.get(e.getKey()) + "): " + removed);
                continue;
            }
            if (spec == null) {
                errors.add(unknown(e.getKey()));
                continue;
            }
            try {
                values.put(e.getKey(), spec.parse(e.getValue()));
            } catch (IllegalArgumentException ex) {
                errors.add("bad value '" + e.getValue() + "' for option '" + e.getKey() + "': " + ex.getMessage());
            }
        }
        if (!errors.isEmpty()) {
            throw new OptionException(String.join("; ", errors));
        }
        return new AgentOptions(values, sources, ignored);
    }

    private static String unknown(String key) {
        return "unknown option '" + key + "'" + nearest(key);
    }

    private static String nearest(String key) {
        String near = Suggest.nearest(key, Options.keys());
        return near == null ? "" : " (did you mean '" + near + "'?)";
    }

    private static Map<String, String> splitArgs(String args, List<String> errors) {
        Map<String, String> out = new LinkedHashMap<>();
        String lastKey = null;
        for (String piece : args.split(",")) {
            String p = piece.trim();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0) {
                if (lastKey != null && isList(lastKey)) {
                    out.put(lastKey, out.get(lastKey) + "," + p);
                } else {
                    errors.add("expected key=value but found '" + p + "'");
                }
                continue;
            }
            lastKey = p.substring(0, eq).trim();
            out.put(lastKey, p.substring(eq + 1).trim());
        }
        return out;
    }

    private static boolean isList(String key) {
        return key.equals(Options.OPS) || key.equals(Options.CONTROLLER_LISTENERS) || key.equals(Options.MITIGATE);
    }

    /** STALLSCOPE_SLOW_THRESHOLD_SEGMENT_FLUSH -> slow.threshold.segment_flush: '.' and '_' both map to '_'. */
    private static String keyForEnv(String envSuffix) {
        for (Iterable<String> keys : List.of(Options.keys(), Options.removedKeys())) {
            for (String key : keys) {
                if (key.replace('.', '_').replace('-', '_').equalsIgnoreCase(envSuffix)) {
                    return key;
                }
            }
        }
        return null;
    }

    /** One clause per option given that this version no longer takes, with why: for the start-up line. */
    public List<String> ignored() {
        return ignored;
    }

    private Object get(String key) {
        Object v = values.get(key);
        if (v != null) {
            return v;
        }
        OptionSpec spec = Options.spec(key);
        return spec.parse(spec.defaultValue());
    }

    public boolean isSet(String key) {
        return values.containsKey(key);
    }

    public String source(String key) {
        return sources.getOrDefault(key, "default");
    }

    public Endpoint prometheus() {
        return (Endpoint) get(Options.PROMETHEUS);
    }

    public boolean jmx() {
        return (Boolean) get(Options.JMX);
    }

    public boolean jfr() {
        return (Boolean) get(Options.JFR);
    }

    public long jfrThresholdNanos(int op) {
        String perOp = Options.JFR_THRESHOLD + "." + OpKind.name(op);
        return (Long) (values.containsKey(perOp) ? values.get(perOp) : get(Options.JFR_THRESHOLD));
    }

    public long slowThresholdNanos(int op) {
        String perOp = Options.SLOW_THRESHOLD + "." + OpKind.name(op);
        return (Long) (values.containsKey(perOp) ? values.get(perOp) : get(Options.SLOW_THRESHOLD));
    }

    /** auto, jfr, counters or off. */
    public String safepointTiming() {
        return (String) get(Options.SAFEPOINT_TIMING);
    }

    public long safepointSlowThresholdNanos() {
        return (Long) (values.containsKey(Options.SLOW_THRESHOLD_SAFEPOINT_SYNC)
            ? values.get(Options.SLOW_THRESHOLD_SAFEPOINT_SYNC) : get(Options.SLOW_THRESHOLD));
    }

    public int slowLogPerMinute() {
        return (Integer) get(Options.SLOW_LOG_PER_MINUTE);
    }

    @SuppressWarnings("unchecked")
    public boolean opEnabled(int op) {
        return ((List<String>) get(Options.OPS)).contains(OpKind.name(op));
    }

    public boolean topicLabels() {
        return (Boolean) get(Options.TOPIC_LABELS);
    }

    public int topicLabelsMax() {
        return (Integer) get(Options.TOPIC_LABELS_MAX);
    }

    public Pattern activateMain() {
        return (Pattern) get(Options.ACTIVATE_MAIN);
    }

    /** The configured controller listener names, or null when not set (then server.properties decides). */
    @SuppressWarnings("unchecked")
    public List<String> controllerListeners() {
        return (List<String>) values.get(Options.CONTROLLER_LISTENERS);
    }

    /** The mitigations asked for by mitigate=, in the order given; empty for none. */
    @SuppressWarnings("unchecked")
    public List<String> mitigations() {
        return (List<String>) get(Options.MITIGATE);
    }

    @SuppressWarnings("unchecked")
    public boolean mitigate(String mitigation) {
        return ((List<String>) get(Options.MITIGATE)).contains(mitigation);
    }

    public int rollFlushMaxPending() {
        return (Integer) get(Options.MITIGATE_ROLL_FLUSH_MAX_PENDING);
    }

    /** hole-repair's quarantine directory, or null when not set (then one next to each log dir). */
    public String holeRepairQuarantineDir() {
        return (String) values.get(Options.MITIGATE_HOLE_REPAIR_QUARANTINE_DIR);
    }

    public boolean stopStartBreakdown() {
        return (Boolean) get(Options.STOP_START_BREAKDOWN);
    }

    /** 0: no progress lines during a stop. */
    public long stopProgressNanos() {
        return (Long) get(Options.STOP_PROGRESS);
    }

    /** 0 when the rolled segment's flush runs when Kafka schedules it. */

    public long prefetchMaxBytes() {
        return (Long) get(Options.MITIGATE_PREFETCH_MAX_BYTES);
    }

    public long prefetchMaxFetchBytes() {
        return (Long) get(Options.MITIGATE_PREFETCH_MAX_FETCH_BYTES);
    }

    public long prefetchMaxWaitNanos() {
        return (Long) get(Options.MITIGATE_PREFETCH_MAX_WAIT);
    }

    public long prefetchAheadBytes() {
        return (Long) get(Options.MITIGATE_PREFETCH_AHEAD_BYTES);
    }

    public long indexWarmMaxBytes() {
        return (Long) get(Options.MITIGATE_INDEX_WARM_MAX_BYTES);
    }

    public long indexWarmMaxWaitNanos() {
        return (Long) get(Options.MITIGATE_INDEX_WARM_MAX_WAIT);
    }

    public boolean prefetchCheckLocks() {
        return (Boolean) get(Options.MITIGATE_PREFETCH_CHECK_LOCKS);
    }

    public long prefetchMinBytes() {
        return (Long) get(Options.MITIGATE_PREFETCH_MIN_BYTES);
    }

    public boolean profile() {
        return (Boolean) get(Options.PROFILE);
    }

    /** The configured capture directory, or null when not set (then the capture package picks the default). */
    public String profileDir() {
        return (String) values.get(Options.PROFILE_DIR);
    }

    /** The op duration that triggers a capture: profile.trigger, else the op's slow-operation threshold. */
    public long profileTriggerNanos(int op) {
        return values.containsKey(Options.PROFILE_TRIGGER) ? (Long) values.get(Options.PROFILE_TRIGGER)
            : slowThresholdNanos(op);
    }

    public long profileChunkNanos() {
        return (Long) get(Options.PROFILE_CHUNK);
    }

    public int profileKeep() {
        return (Integer) get(Options.PROFILE_KEEP);
    }

    public long profileCooldownNanos() {
        return (Long) get(Options.PROFILE_COOLDOWN);
    }

    public int profileMaxFiles() {
        return (Integer) get(Options.PROFILE_MAX_FILES);
    }

    public long profileMaxBytes() {
        return (Long) get(Options.PROFILE_MAX_BYTES);
    }

    /** auto, async-profiler or jfr. */
    public String profileEngine() {
        return (String) get(Options.PROFILE_ENGINE);
    }

    public long profileIntervalNanos() {
        return (Long) get(Options.PROFILE_INTERVAL);
    }

    public boolean strict() {
        return (Boolean) get(Options.STRICT);
    }

    /** Whether strict was asked for, even when other options failed to parse: read from the raw text. */
    public static boolean strictRequested(String agentArgs, Map<String, String> env) {
        String s = env.getOrDefault("STALLSCOPE_STRICT", "false");
        if (agentArgs != null) {
            for (String piece : agentArgs.split(",")) {
                String p = piece.trim();
                if (p.startsWith(Options.STRICT + "=")) {
                    s = p.substring(Options.STRICT.length() + 1);
                }
            }
        }
        try {
            return Values.bool(s.trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
