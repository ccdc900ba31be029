package io.stallscope.analyzer.analysis.stacks;

import io.stallscope.analyzer.model.Frames;
import io.stallscope.analyzer.model.Stacks;

import java.util.Arrays;
import java.util.Locale;

/**
 * Reads what a stack says: is the thread waiting for a lock, and at which frame; is it inside a storage
 * system call. Results are cached per stack id, since samples repeat stacks millions of times.
 */
public final class StackClassifier {
    /** How far from the top a syscall or the lock machinery may sit; deeper frames are the caller's business. */
    private static final int DEPTH = 24;

    private final Frames frames;
    private final Stacks stacks;
    private LockWaitSite[] waitCache = new LockWaitSite[0];
    private LockWaitSite[] inferCache = new LockWaitSite[0];
    private IoOp[] ioCache = new IoOp[0];
    private static final LockWaitSite NOT_WAITING = new LockWaitSite(-1, null);

    public StackClassifier(Frames frames, Stacks stacks) {
        this.frames = frames;
        this.stacks = stacks;
    }

    /**
     * Classifies every stack now, so that the analysis threads only read the caches (computing lazily from
     * several threads would race on growing them).
     */
    public void precompute() {
        int n = stacks.size();
        if (waitCache.length < n) waitCache = Arrays.copyOf(waitCache, n);
        if (ioCache.length < n) ioCache = Arrays.copyOf(ioCache, n);
        if (inferCache.length < n) inferCache = Arrays.copyOf(inferCache, n);
        for (int i = 0; i < n; i++) {
            if (waitCache[i] == null) waitCache[i] = computeLockWait(stacks.frames(i));
            if (inferCache[i] == null) inferCache[i] = computeInferable(stacks.frames(i), waitCache[i]);
            if (ioCache[i] == null) ioCache[i] = computeIo(stacks.frames(i));
        }
    }

    /** The lock this stack waits for, or null when it does not wait for one. */
    public LockWaitSite lockWait(int stackId) {
        if (stackId >= waitCache.length) waitCache = Arrays.copyOf(waitCache, Math.max(stackId + 1, stacks.size()));
        LockWaitSite s = waitCache[stackId];
        if (s == null) s = waitCache[stackId] = computeLockWait(stacks.frames(stackId));
        return s == NOT_WAITING ? null : s;
    }

    /**
     * The lock a sampled stack shows its thread waiting for, or null when a sample there is no evidence of a wait:
     * a profiler's own callback (async-profiler's LockTracer and UnsafeParkHook run after the lock was taken, and
     * the wait they record is an event already), or a fast path: a thread in tryAcquireShared without a park above
     * it is taking an uncontended java.util.concurrent lock, and one in the VM's ObjectSynchronizer::quick_enter a
     * free monitor (it never blocks: a contended enter leaves it for ObjectMonitor::enter). A thread blocked on one of
     * the VM's own mutexes (the compile queue's, entered from a counter overflow inside Lock.lock) is not waiting for
     * the program's lock either.
     */
    public LockWaitSite inferableWait(int stackId) {
        if (stackId >= inferCache.length) inferCache = Arrays.copyOf(inferCache, Math.max(stackId + 1, stacks.size()));
        LockWaitSite s = inferCache[stackId];
        if (s == null) s = inferCache[stackId] = computeInferable(stacks.frames(stackId), lockWaitOrMarker(stackId));
        return s == NOT_WAITING ? null : s;
    }

    private LockWaitSite lockWaitOrMarker(int stackId) {
        LockWaitSite s = lockWait(stackId);
        return s == null ? NOT_WAITING : s;
    }

    private LockWaitSite computeInferable(int[] f, LockWaitSite wait) {
        if (wait == NOT_WAITING) return NOT_WAITING;
        boolean parked = false;
        boolean nativeAbove = false;
        boolean contendedEnter = false;
        boolean queued = false;
        boolean spinning = false;
        for (int i = 0; i < f.length; i++) {
            String n = frames.name(f[i]);
            if (profilerFrame(n)) return NOT_WAITING;
            if (i < wait.siteFrame() && !frames.isJava(f[i])) {
                nativeAbove = true;
                contendedEnter |= n.contains("ObjectMonitor::enter") || n.contains("ObjectMonitor::EnterI");
                queued |= n.contains("ObjectMonitor::EnterI") || n.contains("ObjectMonitor::enter_internal");
                spinning |= isMonitorSpin(n);
            }
            if (i < wait.siteFrame() && (n.contains("ObjectSynchronizer::quick_enter") || n.startsWith("Mutex::lock"))) {
                return NOT_WAITING;
            }
            if (i < wait.siteFrame() && (n.startsWith("jdk.internal.misc.Unsafe.park") || n.startsWith("sun.misc.Unsafe.park")
                    || n.startsWith("java.util.concurrent.locks.LockSupport.park") || (!frames.isJava(f[i]) && isFutex(n)))) {
                parked = true;
            }
        }
        // A monitor is waited for in the VM's contended enter (ObjectMonitor::enter, where it spins, posts the
        // contended-enter event and blocks). Where the VM's frames show the thread short of it, inflating the lock
        // or in the runtime's entry stub, it is on CPU for microseconds and no lock event will cover the sample
        // (BrokerLockRecordingIT's flake). Without native frames (JDK recordings) the synchronized line decides.
        // A j.u.c lock is waited for only once its thread parks.
        // The VM also spins once before it posts that event (TrySpin on 8-23, spin_enter/try_spin on 24+), and a
        // spin that wins takes the monitor with no event at all: such a sample, on CPU, is no wait (the flake again,
        // under CI's load: a descheduled spin stretched one). The spin inside the queued part (EnterI,
        // enter_internal) comes after the event and stays a wait.
        if (wait.lockType().equals("monitor")) {
            if (spinning && !queued) return NOT_WAITING;
            return !nativeAbove || contendedEnter ? wait : NOT_WAITING;
        }
        return parked ? wait : NOT_WAITING;
    }

    /** The VM's spin for a contended monitor, by its names on JDK 8 to 25. */
    private static boolean isMonitorSpin(String n) {
        return n.contains("ObjectMonitor::TrySpin") || n.contains("ObjectMonitor::try_spin") || n.contains("ObjectMonitor::spin_enter")
                || n.contains("ObjectMonitor::short_fixed_spin") || n.startsWith("SpinPause");
    }

    /** A profiler's own code: its samples show the profiler at work, not the program. */
    static boolean profilerFrame(String n) {
        return n.contains("LockTracer") || n.contains("UnsafeParkHook") || n.startsWith("one.profiler.")
                || n.startsWith("Profiler::") || n.startsWith("WallClock") || n.startsWith("datadog.trace.")
                || n.startsWith("com.datadog.profiling.");
    }

    public IoOp io(int stackId) {
        if (stackId >= ioCache.length) ioCache = Arrays.copyOf(ioCache, Math.max(stackId + 1, stacks.size()));
        IoOp op = ioCache[stackId];
        if (op == null) op = ioCache[stackId] = computeIo(stacks.frames(stackId));
        return op;
    }

    /** The frame of a recorded lock event's stack that asked for the lock: below the lock classes. */
    public int siteOfRecordedWait(int stackId) {
        int[] f = stacks.frames(stackId);
        for (int i = 0; i < f.length; i++) {
            String n = frames.name(f[i]);
            if (frames.isJava(f[i]) && !isLockMachinery(n)) return i;
        }
        return f.length > 0 ? 0 : -1;
    }

    private LockWaitSite computeLockWait(int[] f) {
        boolean monitorMarker = false;
        boolean aqsMarker = false;
        boolean onlyFutex = true;
        String lockType = null;
        int limit = Math.min(f.length, DEPTH);
        for (int i = 0; i < limit; i++) {
            String n = frames.name(f[i]);
            boolean java = frames.isJava(f[i]);
            if (!java) {
                if (n.contains("ObjectMonitor::enter") || n.contains("ObjectMonitor::EnterI")
                        || n.contains("ObjectSynchronizer::enter") || n.contains("monitorenter")
                        || n.contains("complete_monitor_locking") || n.contains("ObjectMonitor::TrySpin")) {
                    monitorMarker = true;
                }
                if (n.contains("ObjectMonitor::wait") || n.contains("JVM_MonitorWait")) return NOT_WAITING;
                if (!isFutex(n)) onlyFutex = false;
                continue;
            }
            if (n.contains("ConditionObject") || n.endsWith(".await") || n.endsWith(".awaitNanos")
                    || n.equals("java.lang.Object.wait") || n.equals("java.lang.Object.wait0")) {
                return NOT_WAITING;
            }
            if (isLockMachinery(n)) {
                onlyFutex = false;
                if (n.startsWith("java.util.concurrent.locks.") && (n.contains(".acquire") || n.endsWith(".lock")
                        || n.endsWith(".lockInterruptibly") || n.endsWith(".tryLock"))) {
                    aqsMarker = true;
                    if (n.endsWith(".lock") || n.endsWith(".lockInterruptibly") || n.endsWith(".tryLock")) {
                        lockType = lockTypeOf(n);
                    }
                }
                continue;
            }
            // First ordinary Java frame: the one that asked for the lock, if the frames above were lock machinery.
            if (monitorMarker) return new LockWaitSite(i, "monitor");
            if (aqsMarker) return new LockWaitSite(i, lockType == null ? "AbstractQueuedSynchronizer" : lockType);
            // async-profiler often shows a monitor wait as a bare futex wait right above the synchronized line
            // (native frames only: a LockSupport.park without Lock.lock under it is an idle wait, not a lock).
            if (i > 0 && onlyFutex && frames.line(f[i]) > 0 && !n.endsWith("0")) return new LockWaitSite(i, "monitor");
            return NOT_WAITING;
        }
        return NOT_WAITING;
    }

    private static String lockTypeOf(String method) {
        String cls = method.substring(0, method.lastIndexOf('.'));
        cls = cls.substring("java.util.concurrent.locks.".length());
        int inner = cls.indexOf('$');
        if (inner > 0 && cls.endsWith("Sync")) cls = cls.substring(0, inner);
        return cls;
    }

    static boolean isLockMachinery(String n) {
        return n.startsWith("java.util.concurrent.locks.") || n.startsWith("jdk.internal.misc.Unsafe.park")
                || n.startsWith("sun.misc.Unsafe.park");
    }

    private static boolean isFutex(String n) {
        return n.contains("futex") || n.contains("pthread_cond") || n.contains("pthread_mutex")
                || n.contains("__lll_lock") || n.contains("PlatformEvent::park") || n.contains("Parker::park")
                || n.contains("syscall");
    }

    private IoOp computeIo(int[] f) {
        // The native frame names the system call; the Java frames say whether its file descriptor is a socket.
        IoOp nativeOp = IoOp.NONE;
        IoOp javaOp = IoOp.NONE;
        int limit = Math.min(f.length, DEPTH);
        boolean firstJava = true;
        for (int i = 0; i < limit && javaOp == IoOp.NONE; i++) {
            boolean java = frames.isJava(f[i]);
            String name = frames.name(f[i]);
            IoOp op = ioOf(name, java);
            // A sync is only seen in the call itself: the JDK's native method on top, or the syscall above it. Java
            // code under FileChannelImpl.force (its checks, its lock) runs before or after the fsync, not in it.
            if (java && op == IoOp.FSYNC && nativeOp != IoOp.FSYNC && !(firstJava && nativeSync(name))) op = IoOp.NONE;
            if (java) {
                javaOp = op;
                firstJava = false;
            } else if (nativeOp == IoOp.NONE) {
                nativeOp = op;
            }
        }
        if (javaOp == IoOp.SOCKET) return IoOp.SOCKET;
        return nativeOp != IoOp.NONE ? nativeOp : javaOp;
    }

    /**
     * Java code that reads or writes a descriptor that is not a file: a selector's wakeup (an eventfd or pipe written
     * by Selector.wakeup, drained by the selecting thread), a socket or datagram channel. Their read(2) and write(2)
     * never wait for a disk, so they are no storage call (a network thread draining its wakeup eventfd is not "in a
     * file read").
     */
    private static boolean notAFile(String name) {
        return name.startsWith("sun.nio.ch.EventFD") || name.startsWith("sun.nio.ch.EPoll")
                || name.startsWith("sun.nio.ch.IOUtil.drain") || name.startsWith("sun.nio.ch.IOUtil.write1")
                || name.startsWith("sun.nio.ch.PipeImpl") || name.startsWith("sun.nio.ch.SinkChannelImpl")
                || name.startsWith("sun.nio.ch.SourceChannelImpl") || name.startsWith("sun.nio.ch.SocketChannelImpl")
                || name.startsWith("sun.nio.ch.ServerSocketChannelImpl") || name.startsWith("sun.nio.ch.DatagramChannelImpl")
                || name.startsWith("sun.nio.ch.DatagramDispatcher") || name.startsWith("sun.nio.ch.Net.");
    }

    /** The JDK's file channel classes whose transferTo/transferFrom methods make the sendfile (or copy) call. */
    private static final java.util.Set<String> SENDFILE_CLASSES = java.util.Set.of("sun.nio.ch.FileChannelImpl",
            "sun.nio.ch.FileDispatcherImpl", "sun.nio.ch.UnixFileDispatcherImpl");

    /**
     * A frame of the JDK's transferTo/transferFrom path, by class and method: a method name merely containing
     * "transferTo" (a program's {@code lambda$transferToBgThread$1}, Kafka's own transferFrom wrappers above the
     * JDK's call) is no sendfile.
     */
    static boolean sendfileFrame(String name) {
        int dot = name.lastIndexOf('.');
        if (dot <= 0) return false;
        String method = name.substring(dot + 1);
        return (method.startsWith("transferTo") || method.startsWith("transferFrom"))
                && SENDFILE_CLASSES.contains(name.substring(0, dot));
    }

    private static boolean nativeSync(String name) {
        return name.endsWith(".force0") || name.equals("java.io.FileDescriptor.sync0") || name.equals("java.io.FileDescriptor.sync");
    }

    /** Maps one frame to a system call; first match from the top wins (the most specific one). */
    static IoOp ioOf(String name, boolean java) {
        if (java) {
            if (name.startsWith("sun.nio.ch.SocketDispatcher") || name.startsWith("sun.nio.ch.NioSocketImpl")
                    || name.startsWith("java.net.Socket") || notAFile(name)) {
                return IoOp.SOCKET;
            }
            if (sendfileFrame(name)) return IoOp.SENDFILE;
            if (name.endsWith(".force0") || name.equals("java.io.FileDescriptor.sync")
                    || name.equals("java.io.FileDescriptor.sync0") || name.endsWith("FileChannelImpl.force")) {
                return IoOp.FSYNC;
            }
            if (name.endsWith(".truncate0") || name.equals("java.io.RandomAccessFile.setLength")
                    || name.equals("java.io.RandomAccessFile.setLength0") || name.endsWith("FileChannelImpl.truncate")) {
                return IoOp.FTRUNCATE;
            }
            if (name.endsWith(".unmap0") || name.endsWith("FileChannelImpl.unmap") || name.contains("forceUnmap")
                    || name.contains("safeForceUnmap") || name.endsWith("Unmapper.unmap")) {
                return IoOp.MUNMAP;
            }
            if (name.equals("java.io.FileOutputStream.writeBytes") || name.equals("java.io.RandomAccessFile.writeBytes")
                    || (name.startsWith("sun.nio.ch.FileDispatcherImpl.") && name.contains("write"))) {
                return IoOp.WRITE;
            }
            if (name.equals("java.io.FileInputStream.readBytes") || name.equals("java.io.RandomAccessFile.readBytes")
                    || (name.startsWith("sun.nio.ch.FileDispatcherImpl.") && name.contains("read"))) {
                return IoOp.FILE_READ;
            }
            return IoOp.NONE;
        }
        String n = name.toLowerCase(Locale.ROOT);
        String bare = n.replaceFirst("^_+", "").replace("gi_", "").replace("libc_", "").replaceFirst("^_+", "");
        if (bare.startsWith("sendfile") || n.contains("do_sendfile") || bare.startsWith("copy_file_range")
                || n.contains("splice")) {
            return IoOp.SENDFILE;
        }
        if (bare.equals("fsync") || bare.equals("fdatasync") || n.contains("do_fsync") || n.contains("vfs_fsync")
                || n.contains("sync_file_range")) {
            return IoOp.FSYNC;
        }
        if (bare.startsWith("ftruncate") || n.contains("do_sys_ftruncate") || n.contains("do_truncate")) {
            return IoOp.FTRUNCATE;
        }
        if (bare.equals("munmap") || n.contains("vm_munmap") || n.contains("do_munmap")) return IoOp.MUNMAP;
        if (bare.equals("write") || bare.equals("pwrite64") || bare.equals("pwrite") || bare.equals("writev")
                || bare.equals("pwritev") || n.contains("ksys_write") || n.contains("vfs_write")
                || n.contains("ksys_pwrite")) {
            return IoOp.WRITE;
        }
        if (bare.equals("read") || bare.equals("pread64") || bare.equals("pread") || n.contains("ksys_read")
                || n.contains("vfs_read") || n.contains("ksys_pread")) {
            return IoOp.FILE_READ;
        }
        if (bare.equals("send") || bare.equals("recv") || bare.equals("sendmsg") || bare.equals("recvmsg")
                || n.contains("epoll_wait") || n.contains("tcp_sendmsg")) {
            return IoOp.SOCKET;
        }
        return IoOp.NONE;
    }
}
