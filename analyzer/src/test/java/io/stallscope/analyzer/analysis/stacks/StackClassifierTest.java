package io.stallscope.analyzer.analysis.stacks;

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

    private LockWaitSite inferable(String... names) {
        int[] f = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            boolean java = names[i].contains(".") && !names[i].startsWith("__") && !names[i].contains("::");
            f[i] = frames.intern(names[i], names[i].startsWith("kafka.") ? 145 : 0, java);
        }
        return classifier.inferableWait(stacks.intern(f));
    }

    @Test
    void aProfilersLockCallbackIsNoWait() {
        // async-profiler's hook around Unsafe.park: the park is recorded as an event, the sample is not a second wait
        assertThat(inferable("__futex_abstimed_wait_common", "LockTracer::UnsafeParkHook(_JNIEnv*, _jobject*, unsigned char, long)",
                "jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park",
                "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire", "java.util.concurrent.locks.ReentrantLock.lock",
                "kafka.log.UnifiedLog.append")).isNull();
        assertThat(inferable("LockTracer::MonitorContendedEntered(_jvmtiEnv*, JNIEnv_*, _jobject*, _jobject*)",
                "ObjectMonitor::enter(JavaThread*)", "ObjectSynchronizer::enter", "kafka.log.UnifiedLog.append")).isNull();
        // the same park without the hook is a wait
        assertThat(inferable("__futex_abstimed_wait_common", "Parker::park(bool, long)", "jdk.internal.misc.Unsafe.park",
                "java.util.concurrent.locks.LockSupport.park", "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquire",
                "java.util.concurrent.locks.ReentrantLock.lock", "kafka.log.UnifiedLog.append")).isNotNull();
    }

    @Test
    void aReadLocksFastPathIsNoWait() {
        // tryAcquireShared succeeding: the read lock was free, the thread runs
        String[] fast = {"java.util.concurrent.locks.ReentrantReadWriteLock$Sync.tryAcquireShared",
                "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireShared",
                "java.util.concurrent.locks.ReentrantReadWriteLock$ReadLock.lock", "kafka.server.epoch.LeaderEpochFileCache.latestEntry"};
        assertThat(classifier.lockWait(stacks.intern(ids(fast)))).as("a lock site").isNotNull();
        assertThat(inferable(fast)).isNull();
        assertThat(inferable("jdk.internal.misc.Unsafe.park", "java.util.concurrent.locks.LockSupport.park",
                "java.util.concurrent.locks.AbstractQueuedSynchronizer.acquireShared",
                "java.util.concurrent.locks.ReentrantReadWriteLock$ReadLock.lock", "kafka.server.epoch.LeaderEpochFileCache.latestEntry"))
                .isNotNull();
        // the same lock method blocked on the VM's compile queue (a Kafka 3.9 handler, BrokerLockRecordingIT): no wait
        assertThat(inferable("__lll_lock_wait", "pthread_mutex_lock@@GLIBC_2.2.5", "Mutex::lock_contended", "Mutex::lock",
                "CompileBroker::compile_method_base", "CompilationPolicy::event", "Runtime1::counter_overflow",
                "counter_overflow Runtime1 stub", "java.util.concurrent.locks.ReentrantReadWriteLock$ReadLock.lock",
                "kafka.cluster.Partition.appendRecordsToLeader")).isNull();
    }

    @Test
    void aMonitorsFastPathIsNoWait() {
        // A Kafka 3.9 request handler's wall sample in C1 code taking a free log lock (BrokerLockRecordingIT's
        // recording): the VM's quick enter, which never blocks
        assertThat(inferable("ObjectSynchronizer::quick_enter", "SharedRuntime::monitor_enter_helper", "Runtime1::monitorenter",
                "monitorenter Runtime1 stub", "kafka.log.UnifiedLog.append", "kafka.log.UnifiedLog.appendAsLeader")).isNull();
        // the contended enter is a wait
        assertThat(inferable("ObjectMonitor::enter", "ObjectSynchronizer::enter", "SharedRuntime::complete_monitor_locking_C",
                "_complete_monitor_locking_Java", "kafka.log.UnifiedLog.append", "kafka.log.UnifiedLog.appendAsLeader")).isNotNull();
        assertThat(inferable("__futex_abstimed_wait_common", "___pthread_cond_wait", "os::PlatformEvent::park",
                "ObjectMonitor::EnterI", "ObjectMonitor::enter", "ObjectSynchronizer::enter", "InterpreterRuntime::monitorenter",
                "kafka.log.UnifiedLog.append", "kafka.log.UnifiedLog.appendAsLeader")).isNotNull();
    }

    @Test
    void aMonitorsSlowPathShortOfTheContendedEnterIsNoWait() {
        // Two samples of BrokerLockRecordingIT's failed run (async-profiler wall + lock=0, Kafka 3.9): inflating
        // the log lock, and the C1 runtime's entry; no lock event covered either, since async-profiler's starts
        // in ObjectMonitor::enter, so each made a 6 ms "inferred" wait out of microseconds on CPU
        assertThat(inferable("ObjectSynchronizer::inflate", "ObjectSynchronizer::enter", "InterpreterRuntime::monitorenter",
                "kafka.log.UnifiedLog.append", "kafka.log.UnifiedLog.appendAsLeader")).isNull();
        assertThat(inferable("Runtime1::monitorenter", "monitorenter Runtime1 stub", "kafka.log.UnifiedLog.append",
                "kafka.log.UnifiedLog.appendAsLeader")).isNull();
    }

    @Test
    void aMonitorsSpinBeforeItsContendedEnterEventIsNoWait() {
        // A Kafka 3.9 network thread's wall sample on JDK 17 (BrokerLockRecordingIT, async-profiler wall + lock=0):
        // the VM's first spin, before it posts the contended-enter event; a spin that wins records no event at all
        assertThat(inferable("ObjectMonitor::TrySpin(JavaThread*)", "ObjectMonitor::enter(JavaThread*)", "ObjectSynchronizer::enter",
                "InterpreterRuntime::monitorenter", "kafka.log.UnifiedLog.append", "kafka.log.UnifiedLog.appendAsLeader")).isNull();
        assertThat(inferable("SpinPause", "ObjectMonitor::TrySpin(JavaThread*)", "ObjectMonitor::enter(JavaThread*)",
                "ObjectSynchronizer::enter", "InterpreterRuntime::monitorenter", "kafka.log.UnifiedLog.append")).isNull();
        // JDK 25's names for it
        assertThat(inferable("ObjectMonitor::short_fixed_spin(JavaThread*, int, bool)", "ObjectMonitor::try_spin(JavaThread*)",
                "ObjectMonitor::spin_enter(JavaThread*)", "ObjectMonitor::enter(JavaThread*)", "ObjectSynchronizer::enter",
                "InterpreterRuntime::monitorenter", "kafka.log.UnifiedLog.append")).isNull();
        // the spin once queued, after the event, is a wait (JDK 17's EnterI, JDK 25's enter_internal)
        assertThat(inferable("ObjectMonitor::TrySpin(JavaThread*)", "ObjectMonitor::EnterI(JavaThread*)", "ObjectMonitor::enter(JavaThread*)",
                "ObjectSynchronizer::enter", "InterpreterRuntime::monitorenter", "kafka.log.UnifiedLog.append")).isNotNull();
        assertThat(inferable("ObjectMonitor::try_spin(JavaThread*)", "ObjectMonitor::enter_internal(JavaThread*)",
                "ObjectMonitor::enter_with_contention_mark(JavaThread*, ObjectMonitorContentionMark&)", "ObjectMonitor::enter(JavaThread*)",
                "ObjectSynchronizer::enter", "InterpreterRuntime::monitorenter", "kafka.log.UnifiedLog.append")).isNotNull();
    }

    private int[] ids(String... names) {
        int[] f = new int[names.length];
        for (int i = 0; i < names.length; i++) f[i] = frames.intern(names[i], names[i].startsWith("kafka.") ? 145 : 0, true);
        return f;
    }

    @Test
    void aSocketReadIsNoFileRead() {
        assertThat(io("__GI_read", "Java_sun_nio_ch_SocketDispatcher_read0", "sun.nio.ch.SocketDispatcher.read0",
                "sun.nio.ch.IOUtil.readIntoNativeBuffer", "sun.nio.ch.IOUtil.read", "sun.nio.ch.SocketChannelImpl.read",
                "org.apache.kafka.common.network.PlaintextTransportLayer.read")).isEqualTo(IoOp.SOCKET);
        assertThat(io("__GI_read", "Java_sun_nio_ch_NioSocketImpl_read0", "sun.nio.ch.NioSocketImpl.read0",
                "sun.nio.ch.NioSocketImpl.implRead", "sun.nio.ch.NioSocketImpl.read", "java.net.Socket$SocketInputStream.read"))
                .isEqualTo(IoOp.SOCKET);
    }

    @Test
    void fsyncNeedsASampleInTheCall() {
        // Java code under FileChannelImpl.force, running before the call: no fsync
        assertThat(io("sun.nio.ch.FileChannelImpl.ensureOpen", "sun.nio.ch.FileChannelImpl.force",
                "org.apache.kafka.common.record.FileRecords.flush")).isEqualTo(IoOp.NONE);
        assertThat(io("sun.nio.ch.FileChannelImpl.force", "org.apache.kafka.common.record.FileRecords.flush")).isEqualTo(IoOp.NONE);
        // in the JDK's native method (a JFR sample's top), or in the syscall below it
        assertThat(io("sun.nio.ch.FileDispatcherImpl.force0", "sun.nio.ch.FileChannelImpl.force")).isEqualTo(IoOp.FSYNC);
        assertThat(io("fdatasync", "Java_sun_nio_ch_FileDispatcherImpl_force0", "sun.nio.ch.FileDispatcherImpl.force0",
                "sun.nio.ch.FileChannelImpl.force")).isEqualTo(IoOp.FSYNC);
        assertThat(io("java.io.FileDescriptor.sync0", "java.io.FileDescriptor.sync")).isEqualTo(IoOp.FSYNC);
    }
}
