package io.stallscope.agent.stopstart;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The lines an operator reads after a stop or start, from a breakdown filled as the advice fills it. */
class BreakdownLinesTest {
    private static final long MS = 1_000_000L;

    @Test
    void aStopSaysWhereItsTimeWentPerPhasePerDirAndTheSlowestLogs() {
        Breakdown b = new Breakdown("stop", 1_000 * MS);
        b.signalAt(900 * MS);
        b.expectLogs(12);
        for (int i = 0; i < 12; i++) {
            String dir = i < 6 ? "/data/a" : "/data/b";
            b.add(Phase.FLUSH, 2 * MS, dir);
            b.addLog("t-" + i, dir, 2 * MS, false);
            b.add(Phase.LOG_CLOSE, (10 + i) * MS, dir);
            b.addLog("t-" + i, dir, (10 + i) * MS, true);
            b.add(Phase.SEGMENT_CLOSE, 9 * MS, dir);
            b.add(Phase.INDEX_TRIM, 5 * MS, dir);
            b.add(Phase.INDEX_TRIM, 1 * MS, dir);
        }
        b.add(Phase.CHECKPOINT, 3 * MS, "/data/a");
        b.add(Phase.SEGMENT_FLUSH, MS, "/data/a");
        b.addBytesFlushed(3 << 20);
        b.add(Phase.SEGMENT_FLUSH, MS, "/data/b");
        b.addBytesFlushed(1 << 19);
        b.end(1_300 * MS);

        List<String> lines = BreakdownLines.of(b);
        assertThat(lines.get(0)).startsWith("stop breakdown: 0.400 s from the start of shutdown to the end of the log"
                + " manager's (before the log manager 0.100 s, log manager 0.300 s); flushing logs 0.024 s,"
                + " closing logs 0.186 s (closing segments 0.108 s: index trim 0.072 s,")
            .contains("checkpoints 0.003 s, rest of the log manager 0.087 s; 12 logs, 12 segments, 24 index files"
                + " trimmed, 12 logs flushed (2 segments of 3.5 MiB)");
        assertThat(lines.get(1)).isEqualTo("stop breakdown per log dir: /data/a: 6 logs, flushing 0.012 s, closing"
            + " 0.075 s, segments 0.054 s, checkpoints 0.003 s; /data/b: 6 logs, flushing 0.012 s, closing 0.111 s,"
            + " segments 0.054 s, checkpoints 0.000 s");
        assertThat(lines.get(2)).startsWith("stop breakdown, slowest logs (flush and close): t-11 0.023 s, t-10 0.022 s")
            .doesNotContain("t-1 ");
        assertThat(lines.get(2).substring(lines.get(2).indexOf(": ") + 2).split(", ")).hasSize(BreakdownLines.SLOWEST);
    }

    @Test
    void theEndLineCoversTheStopUpToTheEndOfTheBrokersShutdown() {
        Breakdown b = new Breakdown("stop", 1_000 * MS);
        b.signalAt(900 * MS);
        b.end(1_300 * MS);
        b.serverStopped(900 * MS, 1_750 * MS);
        assertThat(BreakdownLines.end(b)).isEqualTo("stop breakdown, end: 0.850 s from the start of shutdown to the end"
            + " of the broker's shutdown; up to the end of the log manager's 0.400 s, after it 0.450 s (controller,"
            + " raft or ZooKeeper client, what Kafka stops last); the JVM exits next");

        Breakdown inProcess = new Breakdown("stop", 1_000 * MS);
        inProcess.end(1_100 * MS);
        inProcess.serverStopped(950 * MS, 1_200 * MS);
        assertThat(BreakdownLines.end(inProcess)).startsWith("stop breakdown, end: 0.250 s from the broker's shutdown"
            + " call to the end of the broker's shutdown; up to the end of the log manager's 0.150 s, after it 0.100 s");
    }

    @Test
    void aStartSaysWhetherThePreviousStopWasCleanAndWhatWasRecovered() {
        Breakdown b = new Breakdown("start", 0);
        b.previousStop("/data/a", true);
        b.previousStop("/data/b", false);
        b.previousStop("/data/b", false);
        b.add(Phase.LOAD_LOG, 40 * MS, "/data/b");
        b.addLog("t-0", "/data/b", 40 * MS, true);
        b.add(Phase.SEGMENT_RECOVER, 30 * MS, "/data/b");
        b.add(Phase.SEGMENT_RECOVER, 5 * MS, "/data/b");
        b.end(50 * MS);
        List<String> lines = BreakdownLines.of(b);
        assertThat(lines.get(0)).isEqualTo("start breakdown: loading logs 0.050 s; previous stop NOT clean in 1 of 2"
            + " log dirs [/data/b] (logs recovered); 1 logs loaded in 0.040 s, 2 segments recovered in 0.035 s");
        assertThat(lines.get(1)).isEqualTo("start breakdown per log dir: /data/b: 1 logs, loading 0.040 s,"
            + " recovering 0.035 s");
    }

    @Test
    void aSlowStopsProgressNamesTheLogClosingLongest() throws Exception {
        Breakdown b = new Breakdown("stop", 0);
        b.expectLogs(2000);
        for (int i = 0; i < 1200; i++) {
            b.add(Phase.LOG_CLOSE, MS, "/data/a");
        }
        Thread other = new Thread(() -> b.closingStarted("t-7", 5_000 * MS));
        other.start();
        other.join();
        b.closingStarted("t-3", 20_000 * MS);
        assertThat(BreakdownLines.progress(b, 30_000 * MS)).isEqualTo("stop in progress for 30.000 s: 1200 of 2000"
            + " logs closed, 800 left; closing now t-7 for 25.000 s");
    }
}
