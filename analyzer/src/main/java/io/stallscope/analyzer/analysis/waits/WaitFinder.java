package io.stallscope.analyzer.analysis.waits;

import io.stallscope.analyzer.analysis.stacks.LockWaitSite;
import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.model.LockEvent;
import io.stallscope.analyzer.model.LockEvents;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.ThreadInfo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Finds lock waits: recorded lock events first, then runs of samples parked at a lock site. */
public final class WaitFinder {
    private final Recording rec;
    private final StackClassifier classifier;
    private final long[] intervals;

    public WaitFinder(Recording rec, StackClassifier classifier, long[] intervals) {
        this.rec = rec;
        this.classifier = classifier;
        this.intervals = intervals;
    }

    /**
     * Hands every wait to {@code sink}: recorded ones first, then those read from each thread's samples.
     * Streaming, so that millions of sampled waits need not be held at once.
     */
    public void find(java.util.function.Consumer<Wait> sink) {
        Recorded r = recorded();
        r.all().forEach(sink);
        for (ThreadInfo t : rec.threads) sampled(t, r, sink);
    }

    /**
     * The waits recorded by lock events, in event order, by thread (time-sorted), and the first one at each
     * lock site (sampled waits there join its lock). Read-only once built: the analysis threads share it.
     */
    public record Recorded(List<Wait> all, Map<Integer, List<Wait>> byThread, Map<String, Wait> atSite,
                           Map<Integer, List<Wait>> byOwner) {
        /** The recorded waits' positions in about time order, or null when they are not kept as {@link RecordedWaits}. */
        public int[] roughTimeOrder() {
            return all instanceof RecordedWaits rw ? rw.roughTimeOrder() : null;
        }
    }

    public Recorded recorded() {
        // Kept as two ints a wait (RecordedWaits): a lock-heavy recording has tens of millions of events.
        RecordedWaits recorded = new RecordedWaits(rec, rec.locks.size());
        // An event whose stackTrace is null (seen in a JDK chunk for waits begun before the chunk did) still names
        // its monitor by class and address: it is taken where the other events on that monitor say it is.
        Map<String, RecordedWaits.Names> knownSite = new HashMap<>();
        nameEvents(recorded, knownSite);
        return index(recorded, knownSite);
    }

    /** The methods that take the locks waited for without a recorded owner: where holders are searched for. */
    public static Set<String> siteMethods(Recording rec, StackClassifier classifier, Recorded recorded) {
        Set<String> methods = new LinkedHashSet<>();
        for (int s = 0; s < rec.stacks.size(); s++) {
            LockWaitSite site = classifier.lockWait(s);
            if (site != null) methods.add(rec.frames.name(rec.stacks.frames(s)[site.siteFrame()]));
        }
        if (recorded.all() instanceof RecordedWaits r) {
            // Without making a Wait of each of millions of events, and each of their few names looked up once.
            boolean[] seen = new boolean[r.namesCount()];
            for (int k = 0; k < r.size(); k++) {
                if (r.owner(k) >= 0) continue;
                int id = r.namesId(k);
                if (seen[id]) continue;
                seen[id] = true;
                methods.add(r.names(k).siteMethod());
            }
        } else {
            for (Wait w : recorded.all()) {
                if (w.recordedOwner < 0) methods.add(w.siteMethod);
            }
        }
        return methods;
    }

    // The two passes below run over millions of events once a window, with their rare cases in methods of their own:
    // as one method with everything inlined, C2 compiled it four times (on-stack and whole, again after each
    // deoptimization) at about 0.4 s each, more than the passes themselves took.

    /** Gives each lock event the names of its wait (or none: not a wait), in {@code recorded}. */
    private void nameEvents(RecordedWaits recorded, Map<String, RecordedWaits.Names> knownSite) {
        // The names depend only on the event's file, kind, stack, lock class and address: worked out once for each
        // such combination, not once per event (a lock-heavy recording repeats a few thousand of them millions of times).
        Map<EventNames, Integer> namesOf = new HashMap<>();
        LockEvents locks = rec.locks;
        // A direct-mapped cache in front of the map: a window holds millions of events and a few thousand
        // combinations, and a record key made and hashed per event was most of this loop.
        NamesCache cache = new NamesCache();
        for (int i = 0; i < locks.size(); i++) {
            int thread = locks.thread(i);
            if (thread < 0) continue;
            int file = rec.threads.get(thread).file();
            int kind = locks.kind(i).ordinal();
            int stack = locks.stack(i);
            int cls = locks.lockClassIndex(i);
            long address = locks.address(i);
            int slot = NamesCache.slot(file, kind, stack, cls, address);
            int id;
            if (cache.matches(slot, file, kind, stack, cls, address)) {
                id = cache.id[slot];
            } else {
                id = namesOf(i, file, stack, cls, address, namesOf, recorded, knownSite);
                cache.put(slot, file, kind, stack, cls, address, id);
            }
            if (id >= 0) recorded.add(i, id);
        }
    }

    /** The names id of event {@code i}'s combination, worked out when new; -1 when the event is not a wait. */
    private int namesOf(int i, int file, int stack, int cls, long address, Map<EventNames, Integer> namesOf,
                        RecordedWaits recorded, Map<String, RecordedWaits.Names> knownSite) {
        LockEvents locks = rec.locks;
        EventNames key = new EventNames(file, locks.kind(i), stack, cls, address);
        Integer known = namesOf.get(key);
        if (known != null) return known;
        LockEvent e = locks.get(i);
        Wait w = fromEvent(e);
        int id;
        if (w == null) {
            id = -1;
        } else {
            RecordedWaits.Names n = RecordedWaits.Names.of(w);
            id = recorded.id(n);
            if (e.address() != 0 && !w.siteMethod.equals("?")) knownSite.putIfAbsent(w.lockKey, n);
        }
        namesOf.put(key, id);
        return id;
    }

    /** Joins waits to their lock's known site, and indexes them by waiting thread and by recorded owner. */
    private Recorded index(RecordedWaits recorded, Map<String, RecordedWaits.Names> knownSite) {
        // Sampled waits at a site where events recorded the lock itself (its class and address) join that lock.
        Map<String, Wait> recordedAtSite = new HashMap<>();
        int[] renamed = new int[recorded.namesCount()];
        Arrays.fill(renamed, -1);
        int threads = rec.threads.size();
        int[][] positions = new int[threads][];
        int[] counts = new int[threads];
        int[][] ownerPositions = new int[threads][];
        int[] ownerCounts = new int[threads];
        boolean[] seenNames = new boolean[0];
        for (int k = 0; k < recorded.size(); k++) {
            int id = recorded.namesId(k);
            int to = renamed[id];
            if (to < 0) to = renamed[id] = renamed(recorded, k, knownSite);
            recorded.rename(k, to);
            // The first wait with these names is the first at its site among them: the key is built once per lock.
            if (to >= seenNames.length) seenNames = Arrays.copyOf(seenNames, Math.max(to + 1, seenNames.length * 2));
            if (!seenNames[to]) {
                seenNames[to] = true;
                firstAtSite(recorded, k, recordedAtSite);
            }
            add(positions, counts, recorded.thread(k), k);
            // The recorded waits each thread made others wait through, as the lock's previous owner.
            int owner = recorded.owner(k);
            if (owner >= 0) add(ownerPositions, ownerCounts, owner, k);
        }
        return new Recorded(recorded, byStart(recorded, positions, counts), recordedAtSite,
                byStart(recorded, ownerPositions, ownerCounts));
    }

    /** Wait {@code k}'s names id, its site taken from the other events on its monitor when its own stack had none. */
    private static int renamed(RecordedWaits recorded, int k, Map<String, RecordedWaits.Names> knownSite) {
        RecordedWaits.Names n = recorded.names(k);
        RecordedWaits.Names known = n.siteMethod().equals("?") ? knownSite.get(n.lockKey()) : null;
        return known == null ? recorded.namesId(k) : recorded.id(new RecordedWaits.Names(n.lockKey(), known.lockLabel(), n.lockType(),
                known.siteMethod(), known.siteLabel()));
    }

    private static void firstAtSite(RecordedWaits recorded, int k, Map<String, Wait> recordedAtSite) {
        Wait w = recorded.get(k);
        recordedAtSite.putIfAbsent(w.file + ":" + w.lockType + ":" + w.siteLabel, w);
    }

    /** The last names id seen per slot of (file, kind, stack, lock class, address); a slot holds one combination. */
    private static final class NamesCache {
        static final int SIZE = 1 << 12;
        final long[] address = new long[SIZE];
        final int[] stack = new int[SIZE];
        final int[] cls = new int[SIZE];
        final int[] fileKind = new int[SIZE];
        final int[] id = new int[SIZE];
        final boolean[] used = new boolean[SIZE];

        static int slot(int file, int kind, int stack, int cls, long address) {
            long h = (address * 0x9E3779B97F4A7C15L) ^ (stack * 0x85EBCA6BL) ^ ((long) cls << 20) ^ ((long) file << 8) ^ kind;
            h ^= h >>> 29;
            return (int) (h ^ (h >>> 32)) & (SIZE - 1);
        }

        boolean matches(int s, int file, int kind, int stack, int cls, long address) {
            return used[s] && this.address[s] == address && this.stack[s] == stack && this.cls[s] == cls
                    && fileKind[s] == (file << 4 | kind);
        }

        void put(int s, int file, int kind, int stack, int cls, long address, int id) {
            used[s] = true;
            this.address[s] = address;
            this.stack[s] = stack;
            this.cls[s] = cls;
            fileKind[s] = file << 4 | kind;
            this.id[s] = id;
        }
    }

    /** The event kind, stack, lock and file that decide a recorded wait's names. */
    private record EventNames(int file, LockEvent.Kind kind, int stack, int lockClass, long address) {
        // Written out: a record's generated equals and hashCode are method-handle chains that C2 inlines into every
        // map lookup that uses them, which made compiling those lookups cost more than running them.
        @Override
        public boolean equals(Object o) {
            return o instanceof EventNames e && e.file == file && e.kind == kind && e.stack == stack && e.lockClass == lockClass
                    && e.address == address;
        }

        @Override
        public int hashCode() {
            return (((file * 31 + kind.ordinal()) * 31 + stack) * 31 + lockClass) * 31 + Long.hashCode(address);
        }
    }

    private static void add(int[][] positions, int[] counts, int key, int k) {
        int c = ++counts[key];
        int[] p = positions[key];
        if (p == null || p.length < c) positions[key] = p = Arrays.copyOf(p == null ? new int[16] : p, Math.max(16, c * 2));
        p[c - 1] = k;
    }

    /** Per key, its waits in order of start: sorted when an analysis thread first reads them, if ever. */
    private static Map<Integer, List<Wait>> byStart(RecordedWaits recorded, int[][] positions, int[] counts) {
        Map<Integer, List<Wait>> byKey = new HashMap<>();
        for (int key = 0; key < positions.length; key++) {
            if (positions[key] != null) byKey.put(key, recorded.byStart(positions[key], counts[key]));
        }
        return byKey;
    }

    /** The waits read from thread {@code t}'s samples, in time order. */
    public void sampled(ThreadInfo t, Recorded r, java.util.function.Consumer<Wait> sink) {
        // Found first, handed on after: a call to the sink inside the loop over samples would be compiled into it,
        // and that one method would take the compiler seconds.
        List<Wait> own = new ArrayList<>();
        fromSamples(t, r.byThread().getOrDefault(t.id(), List.of()), own);
        boolean join = !r.atSite().isEmpty();
        List<Wait> owned = r.byOwner().getOrDefault(t.id(), List.of());
        for (Wait w : own) {
            Wait same = join ? r.atSite().get(w.file + ":" + w.lockType + ":" + w.siteLabel) : null;
            if (same != null) {
                w.lockKey = same.lockKey;
                w.lockLabel = same.lockLabel;
            }
            if (!owned.isEmpty() && heldThen(owned, w)) continue;
            sink.accept(w);
        }
    }

    // A recorded wait's times from the columns: a Wait made for each look was most of the walk over a thread's samples.
    private static long startOf(List<Wait> recorded, int k) {
        return recorded instanceof RecordedWaits.ByStart b ? b.start(k) : recorded.get(k).start;
    }

    private static long endOf(List<Wait> recorded, int k) {
        return recorded instanceof RecordedWaits.ByStart b ? b.end(k) : recorded.get(k).end;
    }

    /**
     * Whether the events record this thread as the owner of {@code w}'s lock while {@code w} would have it waiting:
     * a thread does not wait for a lock it holds.
     */
    private static boolean heldThen(List<Wait> owned, Wait w) {
        for (Wait o : owned) {
            if (o.start > w.end) break;
            if (o.end >= w.start && o.lockKey.equals(w.lockKey)) return true;
        }
        return false;
    }

    /**
     * Whether samples of this file can show a thread waiting: a CPU profiler samples running threads only, so its
     * samples at a lock site are a spin or a fast path, never a wait.
     */
    private boolean samplesShowWaits(SourceFile f) {
        String event = f.profilerEvent == null ? "" : f.profilerEvent;
        return !(f.producers.contains("async-profiler") && (event.contains("cpu") || event.contains("itimer")));
    }

    private Wait fromEvent(LockEvent e) {
        if (e.thread() < 0) return null;
        int file = rec.threads.get(e.thread()).file();
        int site;
        String type;
        if (e.kind() == LockEvent.Kind.MONITOR) {
            site = classifier.siteOfRecordedWait(e.stack());
            type = "monitor";
        } else {
            // A park is lock contention only under Lock.lock/AQS.acquire; queue polls and condition waits are idle.
            LockWaitSite s = classifier.lockWait(e.stack());
            if (s == null) return null;
            site = s.siteFrame();
            type = s.lockType();
        }
        int[] frames = rec.stacks.frames(e.stack());
        String siteMethod = site >= 0 && site < frames.length ? rec.frames.name(frames[site]) : "?";
        String siteLabel = site >= 0 && site < frames.length ? rec.frames.label(frames[site]) : "?";
        String cls = e.lockClass() == null ? type : e.lockClass();
        // One key and label per monitor and site, not per event: millions of events name a few monitors.
        String[] name = monitorNames.computeIfAbsent(new MonitorAt(file, cls, e.address(), type, siteMethod), m -> {
            if (m.address() != 0) {
                String hex = Long.toHexString(m.address());
                return new String[] {m.file() + ":" + m.cls() + "@" + hex,
                        m.cls() + "@0x" + hex + " (" + m.type() + ", taken in " + m.siteMethod() + ")"};
            }
            return new String[] {m.file() + ":" + m.cls() + "@" + m.siteMethod(),
                    m.cls() + " (" + m.type() + ", taken in " + m.siteMethod() + ")"};
        });
        return new Wait(file, e.thread(), e.start(), e.end(), name[0], name[1], type, siteMethod, siteLabel, e.stack(),
                true, e.previousOwner());
    }

    /** A recorded monitor (by address, or by class and site when the event has no address) where it was taken. */
    private record MonitorAt(int file, String cls, long address, String type, String siteMethod) {
        // Written out: a record's generated equals and hashCode are method-handle chains that C2 inlines into every
        // map lookup that uses them, which made compiling those lookups cost more than running them.
        @Override
        public boolean equals(Object o) {
            return o instanceof MonitorAt m && m.file == file && m.address == address && java.util.Objects.equals(m.cls, cls)
                    && java.util.Objects.equals(m.type, type) && java.util.Objects.equals(m.siteMethod, siteMethod);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(file, cls, address, type, siteMethod);
        }
    }

    private final Map<MonitorAt, String[]> monitorNames = new HashMap<>();

    /** What a waiting stack says about its lock, worked out once per stack (samples repeat stacks). */
    private record Site(String key, String label, String method, String frame) {
    }

    /** Per file, per stack id: millions of waiting samples share a few stacks. */
    private final Map<Integer, Site[]> sites = new HashMap<>();

    /** The last file's array, so a run of one thread's samples skips the map (and the boxing of its key). */
    private int lastFile = -1;
    private Site[] lastSites;

    private Site siteOf(int file, int stack, LockWaitSite s) {
        Site[] byStack = file == lastFile ? lastSites : sites.get(file);
        if (byStack == null || stack >= byStack.length) {
            byStack = byStack == null ? new Site[rec.stacks.size()] : Arrays.copyOf(byStack, rec.stacks.size());
            sites.put(file, byStack);
        }
        lastFile = file;
        lastSites = byStack;
        Site site = byStack[stack];
        if (site == null) byStack[stack] = site = site(file, stack, s);
        return site;
    }

    private Site site(int file, int stack, LockWaitSite s) {
        int[] frames = rec.stacks.frames(stack);
        String method = rec.frames.name(frames[s.siteFrame()]);
        String frame = rec.frames.label(frames[s.siteFrame()]);
        return new Site(file + ":" + s.lockType() + "@" + frame, s.lockType() + " taken at " + frame, method, frame);
    }

    private void fromSamples(ThreadInfo t, List<Wait> recorded, List<Wait> out) {
        if (!samplesShowWaits(rec.files.get(t.file()))) return;
        long interval = intervals[t.file()];
        Wait cur = null;
        int r = 0;
        for (Samples.Cursor c = rec.samples.lane(t.id()).cursor(0); c.next(); ) {
            int stack = c.stack();
            LockWaitSite s = classifier.inferableWait(stack);
            if (s == null) {
                cur = null;
                continue;
            }
            long time = c.time();
            long end = time + c.weight() * interval;
            // A sample inside a recorded wait of this thread adds nothing: the event is exact.
            while (r < recorded.size() && endOf(recorded, r) < time) r++;
            if (r < recorded.size() && startOf(recorded, r) <= end && endOf(recorded, r) >= time) {
                cur = null;
                continue;
            }
            Site site = siteOf(t.file(), stack, s);
            if (cur != null && cur.lockKey.equals(site.key) && time <= cur.end + interval + interval / 2) {
                cur.end = Math.max(cur.end, end);
                cur.samples += c.weight();
                continue;
            }
            cur = new Wait(t.file(), t.id(), time, end, site.key, site.label, s.lockType(), site.method, site.frame,
                    stack, false, -1);
            cur.samples = c.weight();
            out.add(cur);
        }
    }

    /**
     * The sampling period of each thread of a file, in nanoseconds. CPU samples stand for the profiler's
     * interval. Wall-clock profilers sample a few threads per tick, so a thread is sampled less often than the
     * interval says: use the median gap between a thread's samples (divided by a batched sample's tick count),
     * never less than the configured interval.
     */
    public static long[] intervals(Recording rec) {
        long[] result = new long[rec.files.size()];
        for (SourceFile f : rec.files) {
            long setting = f.sampleIntervalNanos;
            boolean asyncProfiler = f.producers.contains("async-profiler");
            String event = f.profilerEvent == null ? "" : f.profilerEvent;
            if (asyncProfiler && (event.contains("cpu") || event.contains("itimer"))) {
                result[f.index] = f.sampleIntervalNanos = setting > 0 ? setting : 10_000_000L;
                continue;
            }
            long[] gaps = new long[200_000];
            int n = 0;
            for (ThreadInfo t : rec.threads) {
                if (t.file() != f.index) continue;
                Samples.Cursor c = rec.samples.lane(t.id()).cursor(0);
                if (!c.next()) continue;
                long prevTime = c.time();
                int prevWeight = c.weight();
                while (n < gaps.length && c.next()) {
                    long g = (c.time() - prevTime) / Math.max(1, prevWeight);
                    if (g > 0) gaps[n++] = g;
                    prevTime = c.time();
                    prevWeight = c.weight();
                }
            }
            long estimate;
            if (n > 0) {
                Arrays.sort(gaps, 0, n);
                estimate = Math.max(gaps[n / 2], setting);
            } else {
                estimate = setting > 0 ? setting : asyncProfiler ? 50_000_000L : 20_000_000L;
            }
            result[f.index] = f.sampleIntervalNanos = Math.max(1_000_000L, Math.min(estimate, 1_000_000_000L));
        }
        return result;
    }
}
