package io.stallscope.agent.logdir;

import io.stallscope.agent.logging.BrokerLog;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The broker's log dirs and their file systems: those of the command line at start, then any an op's path shows.
 * The mount table is read only when a log dir is first seen, never per op; an op's path is looked at only on the
 * ops the recorder resolves anyway (slow ones) and at most once a second besides. Nothing here throws: a failure is
 * said once in the broker's log and the log dir is kept with an unknown file system.
 */
public final class KnownLogDirs {
    /** More distinct log dirs than this means paths that are not log dirs: stop learning rather than grow. */
    static final int MAX = 64;
    static final long LOOK_EVERY_NANOS = 1_000_000_000L;

    /** Where the mount table comes from (the real one, or a test's). */
    public interface MountSource {
        MountTable read() throws IOException;
    }

    private final MountSource mounts;
    private final BrokerLog log;
    private final Map<String, LogDirInfo> known = new ConcurrentHashMap<>();
    private final List<LogDirInfo> inOrder = new CopyOnWriteArrayList<>();
    private final List<LogDirListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong nextLook = new AtomicLong(Long.MIN_VALUE);
    private volatile boolean mountFailureSaid;
    private volatile boolean listenerFailureSaid;
    private volatile boolean fullSaid;
    private volatile boolean announce;

    public KnownLogDirs(MountSource mounts, BrokerLog log) {
        this.mounts = mounts;
        this.log = log;
    }

    public static KnownLogDirs ofThisProcess(BrokerLog log) {
        return new KnownLogDirs(MountTable::read, log);
    }

    /** Listeners hear of the log dirs known so far at once, then of each new one. */
    public void addListener(LogDirListener listener) {
        listeners.add(listener);
        for (LogDirInfo info : inOrder) {
            tell(listener, info);
        }
    }

    /** The log dirs of the broker's configuration, resolved now (start-up); quietly none on any failure. */
    public void addConfigured(List<String> dirs) {
        for (String d : dirs) {
            try {
                learn(Paths.get(d).toAbsolutePath().normalize().toString());
            } catch (RuntimeException e) {
                // an unparsable path in the config: Kafka will complain about it itself
            }
        }
    }

    /** True at most once a second: then the caller resolves an op's path and passes it to {@link #seen}. */
    public boolean wantsPath(long nowNanos) {
        long next = nextLook.get();
        return (next == Long.MIN_VALUE || nowNanos - next >= 0) && nextLook.compareAndSet(next, nowNanos + LOOK_EVERY_NANOS);
    }

    /** A path an op worked on; learns its log dir if it is a new one. Never throws. */
    public void seen(String path) {
        try {
            String dir = LogDirOfPath.logDir(path);
            if (dir != null && !known.containsKey(dir)) {
                learn(dir);
            }
        } catch (Throwable t) {
            sayMountFailure(t);
        }
    }

    /** The log dir known by this path, or null. */
    public LogDirInfo info(String logDir) {
        return logDir == null ? null : known.get(logDir);
    }

    public List<LogDirInfo> all() {
        return new ArrayList<>(inOrder);
    }

    /** For the start-up line. */
    public String describe() {
        List<LogDirInfo> all = all();
        if (all.isEmpty()) {
            return "log dirs: not known yet (learned from the first op)";
        }
        List<String> parts = new ArrayList<>();
        for (LogDirInfo info : all) {
            parts.add(info.describe());
        }
        return "log dirs [" + String.join(", ", parts) + "]";
    }

    /** From now on each newly learned log dir gets a line in the broker's log (those at start are in the start-up line). */
    public void announceNewOnes() {
        announce = true;
    }

    public void close() {
        for (LogDirListener l : listeners) {
            try {
                l.close();
            } catch (Throwable ignored) {
                // detach goes on
            }
        }
        listeners.clear();
    }

    private void learn(String dir) {
        LogDirInfo info;
        synchronized (this) {
            if (known.containsKey(dir)) {
                return;
            }
            if (known.size() >= MAX) {
                if (!fullSaid) {
                    fullSaid = true;
                    log.warn("log dirs: " + MAX + " known already; " + dir + " and any further ones are not reported");
                }
                return;
            }
            info = LogDirInfo.of(dir, mountOf(dir));
            known.put(dir, info);
            inOrder.add(info);
        }
        if (announce) {
            log.info("log dir " + info.describe() + " learned from an op's path");
        }
        for (LogDirListener l : listeners) {
            tell(l, info);
        }
    }

    private Mount mountOf(String dir) {
        MountTable table;
        try {
            table = mounts.read();
        } catch (Throwable t) {
            sayMountFailure(t);
            return null;
        }
        return table.mountOf(realPath(dir));
    }

    /** A symlinked log dir is on the file system of its target. */
    private static String realPath(String dir) {
        try {
            return Paths.get(dir).toRealPath().toString();
        } catch (IOException | RuntimeException e) {
            // not there (yet): its parent's mount is the best guess, and the lexical path finds it
            Path p = Paths.get(dir).toAbsolutePath().normalize();
            return p.toString();
        }
    }

    private void tell(LogDirListener l, LogDirInfo info) {
        try {
            l.learned(info);
        } catch (Throwable t) {
            if (!listenerFailureSaid) {
                listenerFailureSaid = true;
                log.warn("log dirs: reporting " + info.logDir() + " failed (" + t + "); the broker is unaffected");
            }
        }
    }

    private void sayMountFailure(Throwable t) {
        if (!mountFailureSaid) {
            mountFailureSaid = true;
            log.warn("log dirs: could not tell the file system of a log dir (" + t + "); it is reported as unknown,"
                + " the broker is unaffected");
        }
    }
}
