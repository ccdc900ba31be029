package io.stallscope.it.capture;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.slowdisk.SlowDisk;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A broker with the agent (the shaded jar, as deployed) and profile=on, under the simulated slow disk:
 * the shim delays ONE write(2) to the topic's active segment, under the partition's log lock, each
 * time the test arms it. Simulated: only that the write takes 300 ms; the broker, its lock and the
 * waiting request handlers are real.
 */
final class CaptureBroker {
    static final String TOPIC = "stall";
    static final Duration STALL = Duration.ofMillis(300);

    final int prometheusPort = FreePorts.next();
    final Path captures;
    final SlowDisk disk;
    final BrokerSpec spec;

    CaptureBroker(String version, Path tmp, String profileOptions, String... jvmArgs) {
        this.captures = tmp.resolve("captures");
        this.disk = SlowDisk.logTo(tmp.resolve("shim.log"))
            .slowWriteOnTrigger("/" + TOPIC + "-0/[0-9]{20}\\.log$", STALL, tmp.resolve("stall-now"));
        BrokerSpec.Builder b = BrokerSpec.builder(version).name("capture")
            .javaAgent(agentJar(), "prometheus=127.0.0.1:" + prometheusPort + ",profile=on,profile.dir=" + captures
                + (profileOptions.isEmpty() ? "" : "," + profileOptions));
        for (String a : jvmArgs) {
            b.jvmArg(a);
        }
        disk.applyTo(b);
        this.spec = b.build();
    }

    static Path agentJar() {
        Path jar = Path.of(System.getProperty("stallscope.agent.jar", "../agent/target/stallscope-agent.jar"))
            .toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no agent jar at " + jar + ": build the agent module first (mvn package)");
        }
        return jar;
    }

    /** Arms the one-shot stall and waits until a write took it; returns when that write's delay ends. */
    long stallOnce() throws Exception {
        disk.armWrite();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!disk.writeTaken()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no write to " + TOPIC + "-0 took the armed stall in 30 s");
            }
            Thread.sleep(2);
        }
        return System.nanoTime() + STALL.toNanos();
    }

    double metric(String name, String labels) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + prometheusPort + "/metrics").toURL()
            .openConnection();
        c.setConnectTimeout(3000);
        c.setReadTimeout(10000);
        String text;
        try (InputStream in = c.getInputStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name + "{" + labels) + "[^}]*}\\s+(\\S+)").matcher(text);
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }
}
