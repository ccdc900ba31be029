package io.stallscope.agent.logdir;

import io.stallscope.agent.logging.BrokerLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Log dirs from the command line and from ops' paths, each resolved once against the mount table. */
class LogDirLearningTest {
    private static final String TABLE = String.join("\n",
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
        "301 27 7:3 / /data/xfs rw,relatime - xfs /dev/loop3 rw",
        "302 27 7:4 / /data/ext4 rw,relatime - ext4 /dev/loop4 rw");

    @Test
    void theLogDirOfAPathIsTheParentOfItsPartitionDirectory() {
        assertThat(LogDirOfPath.logDir("/data/xfs/kafka/orders-7/00000000000000001234.log")).isEqualTo("/data/xfs/kafka");
        assertThat(LogDirOfPath.logDir("/data/xfs/kafka/orders-7/00000000000000001234.timeindex.deleted"))
            .isEqualTo("/data/xfs/kafka");
        assertThat(LogDirOfPath.logDir("/data/xfs/kafka/orders-7/leader-epoch-checkpoint")).isEqualTo("/data/xfs/kafka");
        // a partition directory itself (UnifiedLog.dir), also one being deleted, and under a log dir named like one
        assertThat(LogDirOfPath.logDir("/data/xfs/kafka/orders-7")).isEqualTo("/data/xfs/kafka");
        assertThat(LogDirOfPath.logDir("/d/orders-7.0123456789abcdef0123456789abcdef-delete")).isEqualTo("/d");
        assertThat(LogDirOfPath.logDir("/var/lib/kafka-1/orders-7")).isEqualTo("/var/lib/kafka-1");
        // not inside a partition directory
        assertThat(LogDirOfPath.logDir("/data/xfs/kafka/meta.properties")).isNull();
        assertThat(LogDirOfPath.logDir("/dev/null")).isNull();
        assertThat(LogDirOfPath.logDir(null)).isNull();
        assertThat(LogDirOfPath.logDir("orders-7")).isNull();
        // a remote (tiered-storage) segment's path is in no log dir
        assertThat(LogDirOfPath.logDir("remote:orders-7/00000000000000001234-jeO6csgKSyeJVFDQoQOpow.log")).isNull();
    }

    @Test
    void opsTeachLogDirsOnceEachAndTheMountTableIsReadOnlyForNewOnes() {
        AtomicInteger reads = new AtomicInteger();
        KnownLogDirs dirs = new KnownLogDirs(() -> {
            reads.incrementAndGet();
            return MountTable.parse(TABLE);
        }, BrokerLog.get());
        List<LogDirInfo> told = new ArrayList<>();
        dirs.addListener(told::add);
        assertThat(dirs.describe()).isEqualTo("log dirs: not known yet (learned from the first op)");
        for (int i = 0; i < 1000; i++) {
            dirs.seen("/data/xfs/kafka/orders-" + (i % 10) + "/00000000000000000000.log");
        }
        dirs.seen("/data/ext4/kafka/orders-1/00000000000000000000.index");
        dirs.seen("/tmp/not-a-log-dir/file");
        assertThat(reads.get()).isEqualTo(2);
        assertThat(told).extracting(LogDirInfo::describe)
            .containsExactly("/data/xfs/kafka (xfs on /dev/loop3)", "/data/ext4/kafka (ext4 on /dev/loop4)");
        assertThat(told.get(0).mountPoint()).isEqualTo("/data/xfs");
        assertThat(dirs.describe()).isEqualTo("log dirs [/data/xfs/kafka (xfs on /dev/loop3), /data/ext4/kafka (ext4 on /dev/loop4)]");
        // a listener added later hears of those known already
        List<LogDirInfo> late = new ArrayList<>();
        dirs.addListener(late::add);
        assertThat(late).hasSize(2);
    }

    @Test
    void anUnreadableMountTableGivesUnknownAndNeverThrows() {
        KnownLogDirs dirs = new KnownLogDirs(() -> {
            throw new IOException("no /proc here");
        }, BrokerLog.get());
        dirs.addListener(info -> {
            throw new IllegalStateException("a broken reporter");
        });
        dirs.seen("/data/xfs/kafka/orders-0/00000000000000000000.log");
        assertThat(dirs.describe()).isEqualTo("log dirs [/data/xfs/kafka (unknown on unknown)]");
    }

    @Test
    void pathsAreLookedAtAtMostOnceASecond() {
        KnownLogDirs dirs = new KnownLogDirs(() -> MountTable.parse(TABLE), BrokerLog.get());
        long t = 5_000_000_000L;
        assertThat(dirs.wantsPath(t)).isTrue();
        assertThat(dirs.wantsPath(t + 1)).isFalse();
        assertThat(dirs.wantsPath(t + 999_999_999L)).isFalse();
        assertThat(dirs.wantsPath(t + 1_000_000_000L)).isTrue();
    }

    @Test
    void theBrokersCommandLineNamesItsLogDirs(@TempDir Path tmp) throws Exception {
        Path props = tmp.resolve("server.properties");
        Files.writeString(props, "node.id=1\nlog.dirs=/data/xfs/a,/data/ext4/b\n");
        assertThat(ConfiguredLogDirs.fromCommand("kafka.Kafka " + props)).containsExactly("/data/xfs/a", "/data/ext4/b");
        assertThat(ConfiguredLogDirs.fromCommand("kafka.Kafka " + props + " --override log.dirs=/x")).containsExactly("/x");
        Files.writeString(props, "log.dir=/data/one\n");
        assertThat(ConfiguredLogDirs.fromCommand("kafka.Kafka " + props)).containsExactly("/data/one");
        Files.writeString(props, "node.id=1\n");
        assertThat(ConfiguredLogDirs.fromCommand("kafka.Kafka " + props)).containsExactly("/tmp/kafka-logs");
        // nothing readable: nothing claimed
        assertThat(ConfiguredLogDirs.fromCommand("kafka.Kafka /no/such/server.properties")).isEmpty();
        assertThat(ConfiguredLogDirs.fromCommand("kafka.Kafka")).isEmpty();
        assertThat(ConfiguredLogDirs.fromCommand("")).isEmpty();

        KnownLogDirs dirs = new KnownLogDirs(() -> MountTable.parse(TABLE), BrokerLog.get());
        dirs.addConfigured(List.of("/data/xfs/a/", "/data/ext4/b"));
        assertThat(dirs.describe()).isEqualTo("log dirs [/data/xfs/a (xfs on /dev/loop3), /data/ext4/b (ext4 on /dev/loop4)]");
    }
}
