package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.model.Frames;
import io.stallscope.analyzer.model.Stacks;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which system call a sampled stack sits in, from the frames of real broker recordings (async-profiler, top first). */
class StackClassifierTest {
    private final Frames frames = new Frames();
    private final Stacks stacks = new Stacks();
    private final StackClassifier classifier = new StackClassifier(frames, stacks);

    /** Frames top first; a name with a '.' and no "(" is a Java method, anything else a native symbol. */
    private IoOp io(String... names) {
        int[] f = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            boolean java = names[i].contains(".") && !names[i].startsWith("__") && !names[i].startsWith("Java_");
            f[i] = frames.intern(names[i], 0, java);
        }
        return classifier.io(stacks.intern(f));
    }

    @Test
    void aSelectorsWakeupIsNoFileIo() {
        // A network thread draining its selector's wakeup eventfd: read(2), but not of a file.
        assertThat(io("__GI_read", "Java_sun_nio_ch_IOUtil_drain", "sun.nio.ch.IOUtil.drain", "sun.nio.ch.EventFD.reset",
                "sun.nio.ch.EPollSelectorImpl.clearInterrupt", "sun.nio.ch.EPollSelectorImpl.processEvents"))
                .isEqualTo(IoOp.SOCKET);
        // A request handler waking a selector up: write(2) to the eventfd.
        assertThat(io("__GI_write", "Java_sun_nio_ch_EventFD_set0", "sun.nio.ch.EventFD.set0", "sun.nio.ch.EventFD.set",
                "sun.nio.ch.EPollSelectorImpl.wakeup", "org.apache.kafka.common.network.Selector.wakeup"))
                .isEqualTo(IoOp.SOCKET);
        // A response written to a socket.
        assertThat(io("writev", "Java_sun_nio_ch_SocketDispatcher_writev0", "sun.nio.ch.SocketDispatcher.writev0",
                "sun.nio.ch.IOUtil.write", "sun.nio.ch.SocketChannelImpl.write")).isEqualTo(IoOp.SOCKET);
    }

    @Test
    void fileWritesSyncsAndSendfileAreStorage() {
        assertThat(io("__GI_write", "Java_sun_nio_ch_FileDispatcherImpl_write0", "sun.nio.ch.FileDispatcherImpl.write0",
                "sun.nio.ch.FileDispatcherImpl.write", "sun.nio.ch.IOUtil.writeFromNativeBuffer", "sun.nio.ch.IOUtil.write",
                "sun.nio.ch.FileChannelImpl.write", "org.apache.kafka.common.record.FileRecords.append")).isEqualTo(IoOp.WRITE);
        assertThat(io("fsync", "Java_sun_nio_ch_FileDispatcherImpl_force0", "sun.nio.ch.FileDispatcherImpl.force0",
                "sun.nio.ch.FileChannelImpl.force")).isEqualTo(IoOp.FSYNC);
        assertThat(io("sendfile64", "Java_sun_nio_ch_FileChannelImpl_transferTo0", "sun.nio.ch.FileChannelImpl.transferTo0",
                "sun.nio.ch.FileChannelImpl.transferTo")).isEqualTo(IoOp.SENDFILE);
        assertThat(io("__GI_pread64", "Java_sun_nio_ch_FileDispatcherImpl_pread0", "sun.nio.ch.FileDispatcherImpl.pread0",
                "sun.nio.ch.FileChannelImpl.read")).isEqualTo(IoOp.FILE_READ);
    }

    @Test
    void aMethodNamedLikeTransferToIsNoSendfile() {
        // a program's own lambda, sampled computing: no system call at all
        assertThat(io("io.stallscope.analyzer.workload.WriteBehindProgram.lambda$transferToBgThread$1",
                "java.lang.Thread.run")).isEqualTo(IoOp.NONE);
        assertThat(io("java.lang.Thread.sleep", "com.example.Copier.transferToBackup", "java.lang.Thread.run")).isEqualTo(IoOp.NONE);
        // Kafka's wrapper is not the call; the JDK's frames above it are
        assertThat(io("org.apache.kafka.common.network.PlaintextTransportLayer.transferFrom")).isEqualTo(IoOp.NONE);
        assertThat(io("sun.nio.ch.FileChannelImpl.transferToDirectlyInternal", "sun.nio.ch.FileChannelImpl.transferToDirectly",
                "sun.nio.ch.FileChannelImpl.transferTo", "org.apache.kafka.common.network.PlaintextTransportLayer.transferFrom"))
                .isEqualTo(IoOp.SENDFILE);
        assertThat(io("sun.nio.ch.FileDispatcherImpl.transferTo0", "sun.nio.ch.FileChannelImpl.transferToDirectlyInternal"))
                .isEqualTo(IoOp.SENDFILE);
    }
}
