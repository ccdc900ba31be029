package io.stallscope.agent.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/** Facts about the JVM the agent landed in, read without loading any Kafka class. */
final class Environment {
    private Environment() {
    }

    /** The main class (first word of sun.java.command), or "" when unknown. */
    static String mainClass() {
        String command = System.getProperty("sun.java.command", "").trim();
        int space = command.indexOf(' ');
        return space < 0 ? command : command.substring(0, space);
    }

    /** The version in kafka-clients' kafka/kafka-version.properties, or "unknown". */
    static String kafkaVersion() {
        try (InputStream in = ClassLoader.getSystemResourceAsStream("kafka/kafka-version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown").trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    static String jdkVersion() {
        return System.getProperty("java.runtime.version", System.getProperty("java.version", "?"));
    }

    /**
     * controller.listener.names from the server.properties kafka.Kafka was started with; null when
     * there is none (ZooKeeper mode, or a config we cannot read).
     */
    static List<String> controllerListenersFromServerProperties() {
        String command = System.getProperty("sun.java.command", "").trim();
        List<String> words = new ArrayList<>(Arrays.asList(command.split("\\s+")));
        if (words.size() < 2) {
            return null;
        }
        Path config = Paths.get(words.get(1));
        if (!Files.isReadable(config)) {
            return null;
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(config)) {
            p.load(in);
        } catch (IOException e) {
            return null;
        }
        // --override controller.listener.names=X on the command line wins over the file
        for (int i = 2; i + 1 < words.size(); i++) {
            if (words.get(i).equals("--override") && words.get(i + 1).startsWith("controller.listener.names=")) {
                p.setProperty("controller.listener.names", words.get(i + 1).substring("controller.listener.names=".length()));
            }
        }
        String names = p.getProperty("controller.listener.names");
        if (names == null || names.trim().isEmpty()) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String n : names.split(",")) {
            if (!n.trim().isEmpty()) {
                out.add(n.trim());
            }
        }
        return out;
    }

    static boolean jfrAvailable() {
        return ModuleLayer.boot().findModule("jdk.jfr").isPresent();
    }

    static String agentVersion() {
        Package p = Environment.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
