package io.stallscope.agent.config;

import io.stallscope.agent.bootstrap.Op;

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

    public static List<String> opNames() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < Op.COUNT; i++) {
            names.add(Op.name(i));
        }
        return names;
    }

    private static Object ops(String v) {
        if (v.equalsIgnoreCase("all")) {
            return opNames();
        }
        List<String> ops = Values.list(v);
        for (String op : ops) {
            if (Op.byName(op) < 0) {
                String near = Suggest.nearest(op, opNames());
                throw new IllegalArgumentException("unknown op '" + op + "'"
                    + (near == null ? "" : " (did you mean '" + near + "'?)"));
            }
        }
        return ops;
    }
}
