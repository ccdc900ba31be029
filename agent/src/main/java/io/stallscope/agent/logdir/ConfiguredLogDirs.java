package io.stallscope.agent.logdir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

/**
 * The log dirs a broker was started with, read from its command line as the JVM saw it (sun.java.command:
 * "kafka.Kafka server.properties [--override log.dirs=...]"), without loading any Kafka class. Kafka takes
 * log.dirs, else log.dir, else /tmp/kafka-logs; an --override wins over the file. Best effort: a properties file
 * that cannot be read gives no log dirs, and the agent learns them from its ops instead.
 */
public final class ConfiguredLogDirs {
    static final String KAFKA_DEFAULT = "/tmp/kafka-logs";

    private ConfiguredLogDirs() {
    }

    public static List<String> fromCommandLine() {
        return fromCommand(System.getProperty("sun.java.command", ""));
    }

    static List<String> fromCommand(String command) {
        List<String> words = new ArrayList<>(Arrays.asList(command.trim().split("\\s+")));
        if (words.size() < 2 || words.get(1).startsWith("-")) {
            return Collections.emptyList();
        }
        Properties p = new Properties();
        Path config = Paths.get(words.get(1));
        boolean read = false;
        if (Files.isReadable(config)) {
            try (InputStream in = Files.newInputStream(config)) {
                p.load(in);
                read = true;
            } catch (IOException | IllegalArgumentException e) {
                read = false;
            }
        }
        boolean overridden = false;
        for (int i = 2; i + 1 < words.size(); i++) {
            if (words.get(i).equals("--override")) {
                String kv = words.get(i + 1);
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    String key = kv.substring(0, eq);
                    if (key.equals("log.dirs") || key.equals("log.dir")) {
                        p.setProperty(key, kv.substring(eq + 1));
                        overridden = true;
                    }
                }
            }
        }
        String dirs = p.getProperty("log.dirs");
        if (dirs == null || dirs.trim().isEmpty()) {
            dirs = p.getProperty("log.dir");
        }
        if ((dirs == null || dirs.trim().isEmpty()) && (read || overridden)) {
            dirs = KAFKA_DEFAULT;
        }
        List<String> out = new ArrayList<>();
        if (dirs != null) {
            for (String d : dirs.split(",")) {
                if (!d.trim().isEmpty() && !out.contains(d.trim())) {
                    out.add(d.trim());
                }
            }
        }
        return out;
    }
}
