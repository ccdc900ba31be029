package io.stallscope.agent.logdir;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Lines as kernels print them: a VM's root, loop-device XFS, escapes, a container's overlay root and bind mounts. */
class MountTableTest {
    private static final String HOST = String.join("\n",
        "22 27 0:21 / /proc rw,relatime - proc proc rw",
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard",
        "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683656k",
        "301 27 7:3 / /var/lib/kafka rw,relatime shared:180 - xfs /dev/loop3 rw,attr2,inode64,noquota",
        "302 27 7:4 / /var/lib/kafka2 rw,relatime shared:181 master:3 - ext4 /dev/loop4 rw",
        "303 27 7:5 / /mnt/kafka\\040data rw,relatime - xfs /dev/loop5 rw",
        "304 27 0:50 / /mnt/stacked rw - tmpfs tmpfs rw",
        "305 304 7:6 / /mnt/stacked rw - xfs /dev/loop6 rw",
        "");

    @Test
    void longestWholeComponentPrefixWins() {
        MountTable t = MountTable.parse(HOST);
        assertThat(t.mountOf("/var/lib/kafka/data").fsType()).isEqualTo("xfs");
        assertThat(t.mountOf("/var/lib/kafka/data").source()).isEqualTo("/dev/loop3");
        assertThat(t.mountOf("/var/lib/kafka").mountPoint()).isEqualTo("/var/lib/kafka");
        // optional fields (shared:, master:) before the separator do not shift type and source
        assertThat(t.mountOf("/var/lib/kafka2/x").source()).isEqualTo("/dev/loop4");
        // "/var/lib/kafka" is not a prefix of "/var/lib/kafkaz": that is the root's
        assertThat(t.mountOf("/var/lib/kafkaz/x").fsType()).isEqualTo("ext4");
        assertThat(t.mountOf("/var/lib/kafkaz/x").source()).isEqualTo("/dev/vda");
        assertThat(t.mountOf("/tmp/kafka-logs").mountPoint()).isEqualTo("/");
    }

    @Test
    void octalEscapesAreUndone() {
        MountTable t = MountTable.parse(HOST);
        Mount m = t.mountOf("/mnt/kafka data/orders-0");
        assertThat(m.mountPoint()).isEqualTo("/mnt/kafka data");
        assertThat(m.source()).isEqualTo("/dev/loop5");
        assertThat(MountTable.unescape("a\\011b\\134c\\012")).isEqualTo("a\tb\\c\n");
        assertThat(MountTable.unescape("no\\escape\\9")).isEqualTo("no\\escape\\9");
    }

    @Test
    void theLastMountOnAPointIsTheOneOnTop() {
        assertThat(MountTable.parse(HOST).mountOf("/mnt/stacked/x").fsType()).isEqualTo("xfs");
    }

    @Test
    void containerOverlayRootAndBindMountedVolume() {
        // docker: the root is an overlay; a named volume is a bind mount of a host directory on the host's disk
        MountTable t = MountTable.parse(String.join("\n",
            "812 697 0:61 / / rw,relatime master:305 - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/ABC:"
                + "/var/lib/docker/overlay2/l/DEF,upperdir=/var/lib/docker/overlay2/123/diff,workdir=/var/lib/docker/overlay2/123/work",
            "813 812 0:64 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw",
            "830 812 259:2 /var/lib/docker/volumes/kafka/_data /var/lib/kafka/data rw,relatime - xfs /dev/nvme0n1p2 rw,attr2",
            "831 812 259:2 /var/lib/docker/containers/abc/hosts /etc/hosts rw,relatime - xfs /dev/nvme0n1p2 rw"));
        Mount volume = t.mountOf("/var/lib/kafka/data/orders-0/00000000000000000000.log");
        assertThat(volume.fsType()).isEqualTo("xfs");
        assertThat(volume.source()).isEqualTo("/dev/nvme0n1p2");
        assertThat(volume.root()).isEqualTo("/var/lib/docker/volumes/kafka/_data");
        Mount root = t.mountOf("/opt/kafka/logs");
        assertThat(root.fsType()).isEqualTo("overlay");
        assertThat(root.source()).isEqualTo("overlay");
    }

    @Test
    void unreadableLinesAreSkipped() {
        MountTable t = MountTable.parse("garbage\n1 2 3\n27 1 254:0 / / rw - ext4 /dev/vda rw\n30 27 0:1 / /x rw -\n");
        assertThat(t.mounts()).hasSize(1);
        assertThat(MountTable.parse("").mountOf("/x")).isNull();
    }

    @Test
    void thisProcessHasAMountForItsWorkingDirectory() throws Exception {
        MountTable t = MountTable.read();
        assertThat(t.mountOf(new java.io.File(".").getCanonicalPath())).isNotNull();
    }
}
