package io.stallscope.it.realdisk;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's live "behind" pairing (issue 41) on LINE's stall across Kafka's versions, on real disks (root;
 * {@link LineScenario}: a loop-device XFS, cold reads throttled to 8 MiB/s by the cgroup I/O controller, three
 * network threads). 3.9.2 with its ext4 control is {@link WriteBehindSendfileIT}; here 2.8.2 (ZooKeeper),
 * 3.6.2 and 4.1.2, where the append and the fetch go through other classes, must pair the same way, and the
 * analyzer must find the same stall in the run's capture, first. Then (scripts/beyond-ci) the fast-disk control: the same load on the same
 * XFS without the read limit names no culprit for any op. (scripts/bench-real-disk-line runs ext4 on each version.)
 */
class LivePairingIT {
    private static final Path DIR = Path.of(System.getProperty("stallscope.it.target", "target"), "live-pairing").toAbsolutePath();

    @BeforeEach
    void requireRealDisk() {
        RealDiskRequirement.assumeAvailable();
    }

    /**
     * 2.8.2 in CI (ZooKeeper, the Scala kafka.log.Log: the layout furthest from WriteBehindSendfileIT's 3.9.2);
     * scripts/beyond-ci adds 3.6.2 and 4.1.2 ({@code -Dstallscope.pairing.versions=2.8.2,3.6.2,4.1.2}).
     */
    static Stream<String> versions() {
        return Stream.of(System.getProperty("stallscope.pairing.versions", "2.8.2").split(","));
    }

    @ParameterizedTest(name = "Kafka {0} on throttled xfs")
    @MethodSource("versions")
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void slowAppendsNameTheNetworkThreadsSendfile(String kafka) throws Exception {
        LineScenario.Result r = LineScenario.run(options(kafka), DIR.resolve(kafka + "-xfs"));
        WriteBehindSendfileIT.assertHandlersBlocked(r);
        WriteBehindSendfileIT.assertSlowAppendsNameTheSendfile(r);
        JsonNode report = SendfilePairing.analyzerReport(r);
        assertThat(SendfilePairing.sendfileFindings(r, report)).as("the analyzer's write-behind-sendfile findings on " + r.capture())
            .isNotEmpty()
            .allSatisfy(f -> assertThat(f.path("fileSystem").asText()).isEqualTo("xfs"));
        SendfilePairing.assertFirstFindingIsTheSendfileStall(r, report);
    }

    /**
     * scripts/beyond-ci only ({@code -Dstallscope.beyond.ci=true}): a minute of CI's 40, and CI has a control of its
     * own for the same pairing, WriteBehindSendfileIT's ext4 (nothing named where XFS's inode lock is not shared).
     */
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aFastDiskNamesNoCulprit() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("stallscope.beyond.ci"),
            "the unthrottled-XFS control runs from scripts/beyond-ci (CI's control is WriteBehindSendfileIT's ext4)");
        LineScenario.Result r = LineScenario.run(options("3.9.2").unthrottled(), DIR.resolve("fast-xfs"));
        System.out.println(r.summary());
        assertThat(r.residentAtStart()).as("backlog cold at the start").isLessThan(0.05);
        // the same load as on the throttled disk: the whole cold backlog (128 MiB of 1 KiB records) read back
        assertThat(r.consumed()).as("records the catch-up read").isGreaterThanOrEqualTo(128L * 1024);
        // Unthrottled, a cold read still reads the real device, and now and then one takes as long as the agent's 20 ms
        // threshold (29 ms in a quiet CI rehearsal, 2026-11-29): the append that really waited behind it on XFS's inode
        // lock is named, truly. What this control proves is that nothing is named without such a wait: every line that
        // names a culprit is an append whose write(2) the JDK's own FileWrite events saw take 20 ms or more.
        for (String line : r.slowLinesNamingAnyone()) {
            assertThat(witnessed(line, r.slowWritesDuring()))
                .as("a culprit named on the unthrottled disk with no slow write(2) in the JDK's witness: %s", line).isTrue();
        }
        assertThat(SendfilePairing.analyzerFindings(r)).as("write-behind-sendfile findings on the unthrottled disk").isEmpty();
    }

    /**
     * Whether the JDK saw the slow append of this line: a write(2) of 20 ms or more on the same thread that ended within
     * 2 s before the line was logged (the line follows the op's end on the agent's thread). An append under 25 ms
     * needs none: the op wraps the write(2) with a little more, so its write may have stayed under the witness's 20 ms.
     */
    private static boolean witnessed(String line, List<SlowFileWrites.Write> writes) {
        Matcher m = Pattern.compile("duration_ms=([0-9.]+) thread=\"([^\"]+)\"").matcher(line);
        if (!m.find()) {
            return false;
        }
        if (Double.parseDouble(m.group(1)) < 25) {
            return true;
        }
        Instant logged = LineScenario.loggedAt(line);
        return writes.stream().anyMatch(w -> w.thread().equals(m.group(2)) && !w.end().isAfter(logged.plusMillis(1))
            && w.end().isAfter(logged.minusSeconds(2)));
    }

    private static LineScenario.Options options(String kafka) {
        // nothing here compares the producer's p99.9 before and during: 5 s of steady load instead of 20 s (CI time)
        return LineScenario.Options.defaults(FsType.XFS).withKafka(kafka).withNetworkThreads(3)
            .withAgentOptions(SendfilePairing.AGENT_OPTIONS).withCapture().withBeforeSeconds(5);
    }
}
