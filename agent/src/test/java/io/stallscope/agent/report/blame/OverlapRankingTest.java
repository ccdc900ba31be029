package io.stallscope.agent.report.blame;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.runtime.HooksOnBootstrap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.stallscope.agent.report.blame.Threads.MS;
import static io.stallscope.agent.report.blame.Threads.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;

/** Which of the other threads' ops a slow op is said to have waited behind, and when none is named. */
class OverlapRankingTest {
    private static final String DIR = "/var/lib/kafka/data";
    private static final String SEGMENT = DIR + "/orders-0/00000000000000000000.log";
    private static final String OTHER_SEGMENT = DIR + "/orders-0/00000000000000004096.log";
    private static final String LOG = DIR + "/orders-0";
    private static final String SNAPSHOT = LOG + "/00000000000000004096.snapshot";
    private static final String NEIGHBOUR = DIR + "/payments-3/00000000000000000000.log";
    private static final String OTHER_DISK = "/mnt/disk2/kafka/payments-3/00000000000000000000.log";

    @BeforeAll
    static void hooksOnTheBootstrapClassPath() {
        HooksOnBootstrap.ensure(); // OpTrace, which the ranking reads, is a hook class
    }

    @Test
    void theSameFileBeatsTheSameLogBeatsTheSameDeviceWhateverTheOverlap() {
        Threads all = Threads.victim(SEGMENT, 100, 520)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 0, 200)                // 100 ms, same file
            .thread("handler-2", "request_handler").op(Op.SEGMENT_READ, 0, OTHER_SEGMENT, 90, 510)  // 410 ms, same log
            .thread("scheduler-0", "scheduler").op(Op.SEGMENT_FLUSH, 0, NEIGHBOUR, 0, 600);    // 420 ms, same dir
        Culprit c = all.culprit();
        assertThat(c.op()).isEqualTo(Op.TRANSFER_TO);
        assertThat(c.scope()).isEqualTo(Scope.FILE);
        assertThat(c.thread()).isEqualTo("net-1");
        assertThat(c.role()).isEqualTo("network");
        assertThat(c.overlapNanos()).isEqualTo(100 * MS);
        assertThat(c.durationNanos()).isEqualTo(200 * MS);
        assertThat(c.describe()).isEqualTo("behind transfer_to 200.000 ms of the same file on network thread "
            + "\"net-1\", overlapping 100.000 ms");

        Culprit log = Threads.victim(SEGMENT, 100, 520)
            .thread("handler-2", "request_handler").op(Op.SEGMENT_READ, 0, OTHER_SEGMENT, 90, 510)
            .thread("scheduler-0", "scheduler").op(Op.SEGMENT_FLUSH, 0, NEIGHBOUR, 0, 600).culprit();
        assertThat(log.scope()).isEqualTo(Scope.LOG);
        assertThat(log.op()).isEqualTo(Op.SEGMENT_READ);

        Culprit device = Threads.victim(SEGMENT, 100, 520)
            .thread("scheduler-0", "scheduler").op(Op.SEGMENT_FLUSH, 0, NEIGHBOUR, 0, 600).culprit();
        assertThat(device.scope()).isEqualTo(Scope.DEVICE);
        assertThat(device.overlapNanos()).isEqualTo(420 * MS);
    }

    @Test
    void withinAScopeTheLongestOverlapWins() {
        Culprit c = Threads.victim(SEGMENT, 100, 520)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 0, 150)
            .thread("net-2", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 95, 500)
            .thread("net-3", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 99, 450).culprit();
        assertThat(c.thread()).isEqualTo("net-2");
        assertThat(c.overlapNanos()).isEqualTo(400 * MS);
    }

    @Test
    void anOpThatBeganAfterTheSlowOpIsNotWhatItWaitedBehind() {
        // LINE's pair seen from the sendfile's side: the write began later and waited for it, not the reverse
        assertThat(Threads.victim(SEGMENT, 100, 500)
            .thread("handler-3", "request_handler").op(Op.RECORDS_APPEND, 0, SEGMENT, 150, 520)
            .culprit()).isNull();
        // but inside an op already running then, a later op is what that thread was doing
        Culprit c = Threads.victim(LOG, 100, 400)
            .thread("handler-3", "request_handler")
            .op(Op.LOG_ROLL, 1, LOG, 92, 404)
            .op(Op.SNAPSHOT_WRITE, 3, SNAPSHOT, 150, 398).culprit();
        assertThat(c.op()).isEqualTo(Op.SNAPSHOT_WRITE);
        assertThat(c.overlapNanos()).isEqualTo(248 * MS);
    }

    @Test
    void unrelatedPartitionsAndFilesAreNeverPaired() {
        // another partition on another log dir whose device is not known: nothing in common
        assertThat(Threads.victim(SEGMENT, 100, 520)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, OTHER_DISK, 0, 600)
            .thread("handler-3", "request_handler").op(Op.RECORDS_APPEND, 0, "/tmp/not-kafka.bin", 0, 600)
            .thread("handler-4", "request_handler").op(Op.SNAPSHOT_TAKE, 0, null, 0, 600)
            .culprit()).isNull();
        // another log dir on another device: still nothing
        LogDirDevices twoDisks = devices(DIR, "/dev/sdb", "/mnt/disk2/kafka", "/dev/sdc");
        assertThat(Threads.victim(SEGMENT, 100, 520, 520, twoDisks)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, OTHER_DISK, 0, 600).culprit()).isNull();
        // the same device under two log dirs: the device scope, and the line names the victim's file system
        LogDirDevices oneDisk = devices(DIR, "/dev/sdb", "/mnt/disk2/kafka", "/dev/sdb");
        Culprit c = Threads.victim(SEGMENT, 100, 520, 520, oneDisk)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, OTHER_DISK, 0, 600).culprit();
        assertThat(c.scope()).isEqualTo(Scope.DEVICE);
        assertThat(c.describe()).contains("on the same device").contains("(xfs)");
    }

    @Test
    void onTheDeviceACoVictimWaitingAsTheSlowOpDidIsNeverNamedAFlushOrReadIs() {
        // the whole device stalls: the append to another partition that stalled first is no cause of this one
        assertThat(Threads.victim(SEGMENT, 100, 520)
            .thread("handler-2", "request_handler").op(Op.RECORDS_APPEND, 0, NEIGHBOUR, 0, 600)
            .thread("handler-4", "request_handler").op(Op.INDEX_RESIZE, 0, DIR + "/payments-3/1.index", 0, 600)
            .culprit()).isNull();
        // an fsync of another partition on the device overlapping it is named, even beside a longer co-victim
        Culprit flush = Threads.victim(SEGMENT, 100, 520)
            .thread("handler-2", "request_handler").op(Op.RECORDS_APPEND, 0, NEIGHBOUR, 0, 600)
            .thread("kafka-scheduler-0", "scheduler").op(Op.SEGMENT_FLUSH, 0, NEIGHBOUR, 90, 300).culprit();
        assertThat(flush.op()).isEqualTo(Op.SEGMENT_FLUSH);
        assertThat(flush.scope()).isEqualTo(Scope.DEVICE);
        assertThat(flush.overlapNanos()).isEqualTo(200 * MS);
        // a slow fsync behind another partition's fsync: two co-victims; behind a cold sendfile: named
        assertThat(Threads.victim(Op.SEGMENT_FLUSH, SEGMENT, 100, 520)
            .thread("kafka-scheduler-1", "scheduler").op(Op.SNAPSHOT_FLUSH, 0, DIR + "/payments-3/1.snapshot", 0, 600)
            .culprit()).isNull();
        assertThat(Threads.victim(Op.SEGMENT_FLUSH, SEGMENT, 100, 520)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, NEIGHBOUR, 0, 600)
            .culprit().op()).isEqualTo(Op.TRANSFER_TO);
        // the same file and the same log keep their pairings whatever the ops: LINE's write behind a sendfile
        assertThat(Threads.victim(Op.TRANSFER_TO, SEGMENT, 100, 520)
            .thread("handler-3", "request_handler").op(Op.RECORDS_APPEND, 0, SEGMENT, 0, 600)
            .culprit().scope()).isEqualTo(Scope.FILE);
    }

    @Test
    void nothingOverlappingInTimeNamesNoCulprit() {
        assertThat(Threads.victim(SEGMENT, 100, 520)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 0, 100)           // ended as it began
            .thread("net-2", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 520, RUNNING)     // began as it ended
            .thread("net-3", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 0, 100.9)         // under 1 ms together
            .culprit()).isNull();
        assertThat(Threads.victim(SEGMENT, 100, 520).culprit()).as("no other thread").isNull();
    }

    @Test
    void anOpStillRunningCountsUpToNowAndSaysSo() {
        Culprit c = Threads.victim(SEGMENT, 100, 520, 530, LogDirDevices.NONE)
            .thread("net-1", "network").op(Op.TRANSFER_TO, 0, SEGMENT, 20, RUNNING).culprit();
        assertThat(c.running()).isTrue();
        assertThat(c.overlapNanos()).isEqualTo(420 * MS);
        assertThat(c.durationNanos()).isEqualTo(510 * MS);
        assertThat(c.describe()).startsWith("behind transfer_to 510.000 ms so far of the same file");
    }

    @Test
    void aHandlerWaitingForTheLockIsNotBlamedTheOneRollingIsByItsSnapshotWrite() {
        // KAFKA-9693: handler-1's append waits for the log's lock; handler-2 waits too; handler-3 holds it, rolling
        Threads threads = Threads.lockWait(LOG, 100, 400)
            .thread("handler-2", "request_handler").op(Op.LOG_APPEND, 0, LOG, 110, RUNNING)
            .thread("handler-3", "request_handler")
            .op(Op.LOG_APPEND, 0, LOG, 90, 405)
            .op(Op.LOG_ROLL, 1, LOG, 92, 404)
            .op(Op.SNAPSHOT_TAKE, 2, LOG, 93, 403)
            .op(Op.SNAPSHOT_WRITE, 3, SNAPSHOT, 95, 402)
            .op(Op.INDEX_RESIZE, 2, LOG + "/00000000000000004096.index", 92, 93);
        Culprit c = threads.culprit();
        assertThat(c.thread()).isEqualTo("handler-3");
        assertThat(c.op()).isEqualTo(Op.SNAPSHOT_WRITE);
        assertThat(c.scope()).isEqualTo(Scope.LOG);
        assertThat(c.describe()).contains("behind snapshot_write 307.000 ms of the same log on request_handler thread");

        // the waiting handler alone is no culprit
        assertThat(Threads.lockWait(LOG, 100, 400)
            .thread("handler-2", "request_handler").op(Op.LOG_APPEND, 0, LOG, 110, RUNNING).culprit()).isNull();
    }

    @Test
    void aWaitForTheLogsLockIsBehindOnlyWhatHeldIt() {
        // 2.8's Log.flush (and 3.x's UnifiedLog.flush) fsyncs before it takes the lock: a scheduler's flush of the
        // same log, however long, held nothing the append waited for; nor does an op of another log on the device
        assertThat(Threads.lockWait(LOG, 100, 400)
            .thread("kafka-scheduler-1", "scheduler").op(Op.SEGMENT_FLUSH, 0, SEGMENT, 50, 450)
            .thread("handler-5", "request_handler").op(Op.LOG_APPEND, 0, DIR + "/payments-3", 60, 420)
            .op(Op.RECORDS_APPEND, 1, NEIGHBOUR, 61, 419)
            .culprit()).isNull();
        // a write of the same log inside another handler's append held it (that write may itself wait for a sendfile)
        Culprit c = Threads.lockWait(LOG, 100, 400)
            .thread("kafka-scheduler-1", "scheduler").op(Op.SEGMENT_FLUSH, 0, SEGMENT, 50, 450)
            .thread("handler-4", "request_handler").op(Op.LOG_APPEND, 0, LOG, 90, 300)
            .op(Op.RECORDS_APPEND, 1, OTHER_SEGMENT, 91, 299).culprit();
        assertThat(c.thread()).isEqualTo("handler-4");
        assertThat(c.op()).isEqualTo(Op.RECORDS_APPEND);
        // a flush inside an append (flush.messages reached) runs under the lock too
        assertThat(Threads.lockWait(LOG, 100, 400)
            .thread("handler-6", "request_handler").op(Op.LOG_APPEND, 0, LOG, 90, 390)
            .op(Op.SEGMENT_FLUSH, 1, OTHER_SEGMENT, 95, 389).culprit().op()).isEqualTo(Op.SEGMENT_FLUSH);
        // the same scheduler flush is still named for a write slow on its own file: they share the device's queue
        assertThat(Threads.victim(SEGMENT, 100, 400)
            .thread("kafka-scheduler-1", "scheduler").op(Op.SEGMENT_FLUSH, 0, SEGMENT, 50, 450)
            .culprit().op()).isEqualTo(Op.SEGMENT_FLUSH);
    }

    @Test
    void aSlowOpOutsideAnyPartitionIsNeverPaired() {
        Threads t = Threads.victim("/tmp/something", 100, 520);
        assertThat(t.applies()).isFalse();
        assertThat(t.thread("net-1", "network").op(Op.TRANSFER_TO, 0, "/tmp/something", 0, 600).culprit()).isNull();
    }

    private static LogDirDevices devices(String dirA, String deviceA, String dirB, String deviceB) {
        return new LogDirDevices() {
            @Override
            public String device(String logDir) {
                return logDir.equals(dirA) ? deviceA : logDir.equals(dirB) ? deviceB : null;
            }

            @Override
            public String fsType(String logDir) {
                return "xfs";
            }
        };
    }

    @Test
    void aQueuedRemoteReadIsBehindTheRemoteReadsThatHeldThePool() {
        Culprit c = Threads.victim(Op.REMOTE_QUEUE_WAIT, "remote:orders-1", 100, 1500)
            .thread("remote-log-reader0", "other").op(Op.REMOTE_READ, 0, "remote:orders-7", 50, 1400)
            .thread("remote-log-reader1", "other").op(Op.REMOTE_READ, 0, "remote:orders-7", 90, 1500)
            // it began during the wait: queued ahead of it (first in, first out), it took a thread the wait needed
            .thread("remote-log-reader2", "other").op(Op.REMOTE_READ, 0, "remote:orders-2", 200, 1500)
            // not a remote read: holds no reader thread
            .thread("handler-1", "request_handler").op(Op.SEGMENT_READ, 0, SEGMENT, 0, 1600)
            .culprit();
        assertThat(c.scope()).isEqualTo(Scope.POOL);
        assertThat(c.op()).isEqualTo(Op.REMOTE_READ);
        assertThat(c.describe()).isEqualTo("behind remote_read 1410.000 ms of orders-7 in the same reader pool on other"
            + " thread \"remote-log-reader1\", overlapping 1400.000 ms, and 2 more reads held the pool");
        // the same holders seen in the other order
        Culprit reversed = Threads.victim(Op.REMOTE_QUEUE_WAIT, "remote:orders-1", 100, 1500)
            .thread("remote-log-reader2", "other").op(Op.REMOTE_READ, 0, "remote:orders-2", 200, 1500)
            .thread("remote-log-reader1", "other").op(Op.REMOTE_READ, 0, "remote:orders-7", 90, 1500)
            .thread("remote-log-reader0", "other").op(Op.REMOTE_READ, 0, "remote:orders-7", 50, 1400)
            .culprit();
        assertThat(reversed.describe()).isEqualTo(c.describe());
    }

    @Test
    void readsOfABurstStartedJustAfterTheWaitWasQueuedHeldThePool() {
        // six fetches queue six reads within microseconds; the two threads take the first two just after the rest
        // are queued: measured on a throttled remote tier (RemoteReadBenchIT), the waits began 0.1 ms before the reads
        Culprit c = Threads.victim(Op.REMOTE_QUEUE_WAIT, "remote:orders-2", 1000, 1189)
            .thread("remote-log-reader0", "other").op(Op.REMOTE_READ, 0, "remote:orders-2", 1000.1, 1188)
            .thread("remote-log-reader1", "other").op(Op.REMOTE_READ, 0, "remote:orders-2", 1000.2, 1189)
            .culprit();
        assertThat(c.describe()).isEqualTo("behind remote_read 188.800 ms of orders-2 in the same reader pool on other"
            + " thread \"remote-log-reader1\", overlapping 188.800 ms, and 1 more read held the pool");
    }

    @Test
    void aQueuedRemoteReadNamesNothingWhenNoReadHeldThePoolAndALocalOpIsNeverBehindARemoteRead() {
        assertThat(Threads.victim(Op.REMOTE_QUEUE_WAIT, "remote:orders-1", 100, 1500)
            .thread("remote-log-reader0", "other").op(Op.REMOTE_READ, 0, "remote:orders-7", 10, 99.5)
            .thread("remote-log-reader1", "other").op(Op.REMOTE_COPY, 0, "remote:orders-7/00000000000000000000-x.log", 0, 1600)
            .culprit()).isNull();
        assertThat(Threads.victim(SEGMENT, 100, 500)
            .thread("remote-log-reader0", "other").op(Op.REMOTE_READ, 0, "remote:orders-0", 0, 600)
            .culprit()).isNull();
    }
}
