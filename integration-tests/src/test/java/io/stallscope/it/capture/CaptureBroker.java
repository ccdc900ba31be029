package io.stallscope.it.capture;

import io.stallscope.it.agent.AgentJar;
import io.stallscope.it.agent.Polling;
import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.FreePorts;
import io.stallscope.it.broker.PrometheusScrape;
import io.stallscope.it.slowdisk.SlowDisk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

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
            .javaAgent(AgentJar.path(), "prometheus=127.0.0.1:" + prometheusPort + ",profile=on,profile.dir=" + captures
                + (profileOptions.isEmpty() ? "" : "," + profileOptions));
        for (String a : jvmArgs) {
            b.jvmArg(a);
        }
        disk.applyTo(b);
        this.spec = b.build();
    }


    /** Arms the one-shot stall and waits until a write took it; returns when that write's delay ends. */
    long stallOnce() throws Exception {
        disk.armWrite();
        // Probed every 2 ms: the caller times what follows from the moment the write took the stall.
        if (!Polling.until(Duration.ofSeconds(30), Duration.ofMillis(2), disk::writeTaken, taken -> taken)) {
            throw new IllegalStateException("no write to " + TOPIC + "-0 took the armed stall in 30 s");
        }
        return System.nanoTime() + STALL.toNanos();
    }

    /** A capture counter, e.g. {@code captures("written")}: stallscope_captures_total{result=...}. */
    double captures(String result) throws IOException {
        return PrometheusScrape.scrape(prometheusPort).sum("stallscope_captures_total", Map.of("result", result));
    }
}
