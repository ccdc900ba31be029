package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.model.IoEvent;
import io.stallscope.analyzer.model.LogDir;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code write-behind-sendfile} (issue 16, LINE's XFS stall): a request handler's append to file F stalled while
 * another thread read F. On XFS, sendfile ({@code xfs_file_splice_read}) and buffered reads hold the file's inode
 * IOLOCK shared while they wait for the disk, and a buffered write(2) takes it exclusive: an append to the active
 * segment waits for a consumer's cold read of it, under the partition lock. ext4 takes no such lock, so there an
 * overlap is coincidence. The rule (docs/analyzer.md):
 * <ul>
 * <li>the write: an agent {@code records_append} span, else a {@code jdk.FileWrite} event, on a request handler, of at
 * least {@link #MIN_WRITE_NANOS}, with a path;</li>
 * <li>the read, on another thread: an agent {@code transfer_to}, {@code tls_transfer} or {@code segment_read} span
 * (a prefetch warm-up is a {@code transfer_to} on a request handler) or a {@code jdk.FileRead} with the same path,
 * overlapping the write by at least {@link #MIN_OVERLAP_NANOS}; failing that, a thread with no recorded read over
 * the write sampled at least {@link #MIN_SAMPLES} times in sendfile during it (the JDK has no sendfile event, so
 * its file is not known);</li>
 * <li>the file system, from the {@code stallscope.LogDir} event whose log dir holds the path: XFS fires; any other
 * known file system (ext4...) never does; none known fires only for a write of {@link #MIN_WRITE_UNKNOWN_FS_NANOS} or
 * more, worded without claiming XFS.</li>
 * </ul>
 */
final class WriteBehindSendfile {
    static final long MIN_WRITE_NANOS = 20_000_000L;
    static final long MIN_WRITE_UNKNOWN_FS_NANOS = 100_000_000L;
    static final long MIN_OVERLAP_NANOS = 5_000_000L;
    static final int MIN_SAMPLES = 2;
    /** Files with a finding each (the most overlap first); the rest are summed in the first one's evidence. */
    static final int MAX_FILES = 5;
    /** Agent ops that read a segment file: sendfile, TLS's pread, the fetch's own read (and warm-ups, as transfer_to). */
    static final Set<String> READ_OPS = Set.of("transfer_to", "tls_transfer", "segment_read");
    static final String XFS_LOCK = "XFS holds the file's inode lock (IOLOCK) shared during sendfile's disk wait; "
            + "the append's write(2) needs it exclusive";
    static final String UNKNOWN_FS = "file system unknown: the agent's stallscope.LogDir event is missing";
    /**
     * A read slower than this many bytes a second moved at a disk's pace: the page cache feeds sendfile at hundreds of
     * MB/s or more (the LINE capture's warm sends: 115-222 MB/s, its cold ones 0.2-1 MB/s on a disk throttled to 8 MiB/s).
     */
    static final long COLD_PACE_BYTES_PER_SECOND = 32L << 20;

    /** An append that stalled. {@code source}: "agent span" or "jdk.FileWrite". */
    record Write(int thread, int file, String path, long start, long end, String op, String topic, int partition, String source) {
        long duration() {
            return end - start;
        }
    }

    /**
     * A read of a file on another thread; {@code path} null when it is known from samples only. {@code bytes}: what
     * it moved, -1 when not recorded; {@code behind}: what the agent recorded it ran behind, or null.
     */
    record Read(int thread, String path, long start, long end, String op, String source, int samples, int stack, long bytes,
                Span.Behind behind) {
        Read(int thread, String path, long start, long end, String op, String source, int samples, int stack) {
            this(thread, path, start, end, op, source, samples, stack, -1, null);
        }
    }

    record Pair(Write write, Read read, long overlap, LogDir logDir) {
    }

    private final Analysis a;
    private final Recording rec;
    private final LogDirFileSystems fileSystems;

    WriteBehindSendfile(Analysis a) {
        this.a = a;
        this.rec = a.recording();
        this.fileSystems = new LogDirFileSystems(rec.logDirs);
    }

    void add(List<Finding> out) {
        Map<Integer, List<Read>> readsByThread = new HashMap<>();
        Map<String, List<Read>> readsByPath = new HashMap<>();
        for (Read r : recordedReads()) {
            readsByThread.computeIfAbsent(r.thread, k -> new ArrayList<>()).add(r);
            readsByPath.computeIfAbsent(key(rec.threads.get(r.thread).file(), r.path), k -> new ArrayList<>()).add(r);
        }
        Map<Integer, Busy> busy = new HashMap<>();
        readsByThread.forEach((t, reads) -> busy.put(t, new Busy(reads)));
        // Per file: each stalled append with the read it overlapped most.
        Map<String, List<Pair>> byFile = new LinkedHashMap<>();
        for (Write w : writes()) {
            LogDir dir = fileSystems.of(w.file, w.path);
            String fs = dir == null || dir.fileSystem() == null ? null : dir.fileSystem();
            boolean unknown = fs == null || fs.isEmpty() || fs.equals("unknown");
            if (!unknown && !fs.equals("xfs")) continue; // ext4 and the rest: a write does not wait for a read there
            if (unknown && w.duration() < MIN_WRITE_UNKNOWN_FS_NANOS) continue;
            Pair best = null;
            for (Read r : readsByPath.getOrDefault(key(w.file, w.path), List.of())) {
                if (r.thread == w.thread) continue;
                long overlap = Math.min(w.end, r.end) - Math.max(w.start, r.start);
                if (overlap >= MIN_OVERLAP_NANOS && (best == null || overlap > best.overlap)) best = new Pair(w, r, overlap, unknown ? null : dir);
            }
            if (best == null) best = sampledSendfile(w, busy, unknown ? null : dir);
            if (best != null) byFile.computeIfAbsent(key(w.file, w.path), k -> new ArrayList<>()).add(best);
        }
        List<List<Pair>> files = new ArrayList<>(byFile.values());
        files.sort(Comparator.comparingLong(WriteBehindSendfile::total).reversed()
                .thenComparing(l -> l.get(0).write.path));
        List<Finding> found = new ArrayList<>();
        for (List<Pair> pairs : files.subList(0, Math.min(files.size(), MAX_FILES))) found.add(finding(pairs));
        if (files.size() > MAX_FILES) {
            List<List<Pair>> rest = files.subList(MAX_FILES, files.size());
            long nanos = rest.stream().mapToLong(WriteBehindSendfile::total).sum();
            Finding f = found.get(0);
            List<String> evidence = new ArrayList<>(f.evidence());
            evidence.add(String.format(Locale.ROOT, "%s had appends stalled behind reads, %s of overlap in total",
                    Counts.of(rest.size(), "more file"), Durations.text(nanos)));
            found.set(0, f.with(evidence));
        }
        out.addAll(found);
    }

    /**
     * A thread's recorded reads, for "did any overlap [from, to]" in O(log n): a network thread can have a span for
     * every send over jfr.threshold, and the question is asked for every stalled write.
     */
    static final class Busy {
        private final long[] starts;
        /** The latest end among the reads up to each index (by start). */
        private final long[] maxEnd;

        Busy(List<Read> reads) {
            List<Read> sorted = new ArrayList<>(reads);
            sorted.sort(Comparator.comparingLong(Read::start));
            starts = new long[sorted.size()];
            maxEnd = new long[sorted.size()];
            long m = Long.MIN_VALUE;
            for (int i = 0; i < starts.length; i++) {
                starts[i] = sorted.get(i).start;
                m = Math.max(m, sorted.get(i).end);
                maxEnd[i] = m;
            }
        }

        boolean overlaps(long from, long to) {
            // the last read starting at or before `to`; some read up to it must end at or after `from`
            int lo = 0;
            int hi = starts.length - 1;
            int last = -1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                if (starts[mid] <= to) {
                    last = mid;
                    lo = mid + 1;
                } else {
                    hi = mid - 1;
                }
            }
            return last >= 0 && maxEnd[last] >= from;
        }
    }

    private static long total(List<Pair> pairs) {
        return pairs.stream().mapToLong(Pair::overlap).sum();
    }

    private static String key(int file, String path) {
        return file + "\u0000" + path;
    }

    private boolean inView(long start, long end) {
        return end >= a.options().from() && start <= a.options().to();
    }

    private boolean tool(int thread) {
        return KafkaThreads.isTool(rec.threadName(thread));
    }

    private boolean handler(int thread, String spanRole) {
        return KafkaThreads.REQUEST_HANDLER.equals(spanRole) || KafkaThreads.REQUEST_HANDLER.equals(KafkaThreads.role(rec.threadName(thread)));
    }

    private int fileOf(int thread) {
        return thread >= 0 && thread < rec.threads.size() ? rec.threads.get(thread).file() : 0;
    }

    private List<Write> writes() {
        List<Write> out = new ArrayList<>();
        Map<Integer, List<Span>> appends = new HashMap<>();
        for (Span s : rec.spans) {
            if (!"records_append".equals(s.opName()) || s.thread() < 0 || tool(s.thread())) continue;
            appends.computeIfAbsent(s.thread(), k -> new ArrayList<>()).add(s);
            if (s.duration() >= MIN_WRITE_NANOS && !empty(s.path()) && handler(s.thread(), s.threadRole()) && inView(s.start(), s.end())) {
                out.add(new Write(s.thread(), fileOf(s.thread()), s.path(), s.start(), s.end(), s.opName(), s.topic(),
                        s.partition(), "agent span " + s.type()));
            }
        }
        int fileWrite = rec.io.typeNumber("FileWrite");
        for (int i = 0; i < rec.io.size(); i++) {
            // Most events, nearly all short: told by the type's number and the duration in the columns, with no
            // IoEvent made (nor the type's name compared) for each of them.
            if (rec.io.typeNumber(i) != fileWrite || rec.io.end(i) - rec.io.start(i) < MIN_WRITE_NANOS) continue;
            IoEvent e = rec.io.get(i);
            if (e.thread() < 0 || e.end() - e.start() < MIN_WRITE_NANOS || empty(e.target())
                    || tool(e.thread()) || !handler(e.thread(), null) || !inView(e.start(), e.end())) {
                continue;
            }
            // the JDK's event of an append the agent timed too is the same write
            boolean timed = appends.getOrDefault(e.thread(), List.of()).stream()
                    .anyMatch(s -> e.target().equals(s.path()) && s.start() <= e.end() && e.start() <= s.end());
            if (timed) continue;
            PartitionOfPath.Tp tp = PartitionOfPath.of(e.target());
            out.add(new Write(e.thread(), fileOf(e.thread()), e.target(), e.start(), e.end(), "write", tp == null ? null : tp.topic(),
                    tp == null ? -1 : tp.partition(), "jdk.FileWrite"));
        }
        out.sort(Comparator.comparingLong(Write::start).thenComparingInt(Write::thread));
        return out;
    }

    private List<Read> recordedReads() {
        List<Read> out = new ArrayList<>();
        for (Span s : rec.spans) {
            if (READ_OPS.contains(s.opName()) && s.thread() >= 0 && !empty(s.path()) && !tool(s.thread())) {
                out.add(new Read(s.thread(), s.path(), s.start(), s.end(), s.opName(), "agent span " + s.type(), 0, 0, s.bytes(), s.behind()));
            }
        }
        int fileRead = rec.io.typeNumber("FileRead");
        for (int i = 0; i < rec.io.size(); i++) {
            if (rec.io.typeNumber(i) != fileRead) continue;
            IoEvent e = rec.io.get(i);
            if (e.thread() >= 0 && !empty(e.target()) && !tool(e.thread())) {
                out.add(new Read(e.thread(), e.target(), e.start(), e.end(), "read", "jdk.FileRead", 0, e.stack(), e.bytes(), null));
            }
        }
        return out;
    }

    /**
     * The thread sampled most in sendfile during the write, among those with no recorded read overlapping it (a
     * recorded read names its file; if that were F the path rule had paired it). Sendfile is told by the syscall and
     * the channel class (StackClassifier), never by a method name containing "transferTo".
     */
    private Pair sampledSendfile(Write w, Map<Integer, Busy> busy, LogDir dir) {
        long interval = Math.max(1, a.intervals()[w.file]);
        Read best = null;
        for (var t : rec.threads) {
            int id = t.id();
            if (id == w.thread || t.file() != w.file || tool(id)) continue;
            Busy recorded = busy.get(id);
            if (recorded != null && recorded.overlaps(w.start, w.end)) continue;
            int n = 0;
            long first = 0;
            long last = 0;
            Map<Integer, Integer> stacks = new HashMap<>();
            for (Samples.Cursor c = rec.samples.lane(id).cursorAt(w.start); c.next() && c.time() <= w.end; ) {
                if (a.classifier().io(c.stack()) != IoOp.SENDFILE) continue;
                if (n == 0) first = c.time();
                last = c.time();
                n += c.weight();
                stacks.merge(c.stack(), c.weight(), Integer::sum);
            }
            if (n >= MIN_SAMPLES && (best == null || n > best.samples)) {
                int stack = stacks.entrySet().stream().max(Map.Entry.<Integer, Integer>comparingByValue()
                        .thenComparing(Map.Entry::getKey, Comparator.reverseOrder())).get().getKey();
                best = new Read(id, null, first, last, "sendfile", "samples", n, stack);
            }
        }
        if (best == null) return null;
        long overlap = Math.min(w.duration(), best.samples * interval);
        return overlap >= MIN_OVERLAP_NANOS ? new Pair(w, best, overlap, dir) : null;
    }

    private Finding finding(List<Pair> pairs) {
        Pair top = pairs.stream().max(Comparator.comparingLong(Pair::overlap).thenComparing(p -> -p.write.start)).get();
        Write w = top.write;
        Read r = top.read;
        String writer = rec.threadName(w.thread);
        String reader = rec.threadName(r.thread);
        long totalOverlap = total(pairs);
        LogDir dir = top.logDir;
        boolean xfs = dir != null;
        String tp = w.topic == null || w.topic.isEmpty() ? null : w.partition >= 0 ? w.topic + "-" + w.partition : w.topic;
        boolean warmUp = r.path != null && handler(r.thread, null) && r.op.equals("transfer_to");
        String readWhat = r.path == null ? "was sampled " + r.samples + " times in sendfile (its file is not in the recording)"
                : (warmUp ? "warmed the same file (" + r.op + ")" : "read the same file (" + r.op + ")");
        String summary = String.format(Locale.ROOT, "%s %s on %s%s to %s stalled while %s %s: %s of overlap; %s%s",
                w.op, Durations.text(w.duration()), writer, tp == null ? "" : " for " + tp, fileName(w.path), reader, readWhat,
                Durations.text(top.overlap), xfs ? XFS_LOCK : UNKNOWN_FS + " (on XFS a read's disk wait blocks the write; on ext4 it does not)",
                pairs.size() > 1 ? String.format(Locale.ROOT, " (%d appends to this file, %s of overlap in all)", pairs.size(), Durations.text(totalOverlap)) : "");

        StallChain chain = chain(pairs, r, xfs);
        List<String> evidence = new ArrayList<>(chain.lines());
        evidence.add(String.format(Locale.ROOT, "append: %s on %s at +%.3f s for %s, path %s%s (%s)", w.op, writer,
                (w.start - rec.startNanos()) / 1e9, Durations.text(w.duration()), w.path, tp == null ? "" : ", " + tp, w.source));
        String sampled = sampledIn(w.thread, w.start, w.end, IoOp.WRITE);
        if (sampled != null) evidence.add(writer + " " + sampled);
        if (r.path != null) {
            evidence.add(String.format(Locale.ROOT, "read: %s on %s at +%.3f s for %s, path %s (%s)", r.op, reader,
                    (r.start - rec.startNanos()) / 1e9, Durations.text(r.end - r.start), r.path, r.source));
            String rs = sampledIn(r.thread, Math.max(w.start, r.start), Math.min(w.end, r.end), IoOp.SENDFILE);
            if (rs != null) evidence.add(reader + " " + rs);
        } else {
            evidence.add(String.format(Locale.ROOT, "read: %s sampled %d times in sendfile during the append, from +%.3f s, e.g. %s "
                    + "(the JDK records no event for sendfile, so which file it sent is not known)", reader, r.samples,
                    (r.start - rec.startNanos()) / 1e9, a.frames(r.stack, 8)));
        }
        if (xfs) {
            evidence.add(String.format("log dir %s: %s on %s, mounted at %s (stallscope.LogDir)", dir.logDir(), dir.fileSystem(),
                    dir.device(), dir.mountPoint()));
        } else {
            evidence.add(UNKNOWN_FS + ": no log dir of this recording holds " + w.path
                    + "; the finding needs a write of " + Durations.text(MIN_WRITE_UNKNOWN_FS_NANOS) + " or more then");
        }
        if (warmUp) {
            evidence.add("the reader is a warm-up (transfer_to on a request handler): a sendfile warm-up holds the IOLOCK like the"
                    + " consumer's read; mmap + MADV_WILLNEED does not");
        }
        evidence.add("what helps: keep the active segment in the page cache, e.g. a smaller segment.bytes so readers far behind"
                + " read rolled segments instead; prefetch (mitigate=prefetch) once it covers the active segment, warming it"
                + " without sendfile");
        List<String> threads = new ArrayList<>();
        threads.add(writer);
        threads.add(reader);
        for (Pair p : pairs) {
            for (String n : List.of(rec.threadName(p.write.thread), rec.threadName(p.read.thread))) {
                if (!threads.contains(n)) threads.add(n);
            }
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("chain", chain.links());
        details.put("writerThread", writer);
        details.put("readerThread", reader);
        details.put("writerOp", w.op);
        details.put("readerOp", r.op);
        details.put("path", w.path);
        details.put("topic", w.topic);
        details.put("partition", w.partition);
        details.put("writeMs", Durations.ms(w.duration()));
        details.put("overlapMs", Durations.ms(top.overlap));
        details.put("overlapStartMs", Durations.ms(Math.max(w.start, r.start) - rec.startNanos()));
        details.put("appends", pairs.size());
        details.put("totalOverlapMs", Durations.ms(totalOverlap));
        details.put("fileSystem", xfs ? dir.fileSystem() : "unknown");
        details.put("logDir", xfs ? dir.logDir() : null);
        details.put("device", xfs ? dir.device() : null);
        details.put("writeSource", w.source);
        details.put("readSource", r.source);
        // The clients' cost: each stalled append's overlap with the read (the writer is a request handler), and the
        // read itself when a request-path thread made it (a network thread's sendfile holds every response behind it).
        HarmMeter harm = new HarmMeter(rec);
        for (Pair p : pairs) {
            long from = Math.max(p.write.start, p.read.start);
            int source = p.read.samples > 0 ? Harm.SAMPLES
                    : Harm.SPAN;
            harm.add(p.write.thread, from, from + p.overlap, source);
            harm.add(p.read.thread, p.read.start, p.read.end, source);
        }
        return new Finding(Finding.WRITE_BEHIND_SENDFILE, summary, threads, evidence, totalOverlap, details)
                .at(Math.max(w.start, r.start)).with(harm.measure());
    }

    /**
     * The stall from the victims to the root: the appends that waited, the reader that held the file, what it was
     * doing, and why that was slow where the recording shows it (the agent's behind fields on the read, recorded; else
     * the read's own pace, inferred from its bytes and time). A link nothing shows is left out.
     */
    private StallChain chain(List<Pair> pairs, Read r, boolean xfs) {
        List<Integer> writers = new ArrayList<>();
        long longest = 0;
        Write w = pairs.get(0).write;
        for (Pair p : pairs) {
            if (!writers.contains(p.write.thread)) writers.add(p.write.thread);
            if (p.write.duration() > longest) {
                longest = p.write.duration();
                w = p.write;
            }
        }
        String reader = rec.threadName(r.thread);
        StallChain chain = new StallChain().waited(String.format(Locale.ROOT, "%s (%s) to %s: %s of overlap with the read; the longest, %s %s",
                FindingDetector.whoWaited(writers, rec), Counts.of(pairs.size(), "append"), fileName(w.path),
                Durations.text(total(pairs)), w.op, Durations.text(longest)), "recorded: " + w.source);
        if (r.path == null) {
            return chain.heldBy(reader + ", in sendfile(2) during the append", "inferred: " + Counts.of(r.samples, "sample"));
        }
        chain.heldBy(reader + (xfs ? ", reading the same file: XFS holds its inode lock (IOLOCK) shared while the read waits for"
                + " the disk, and write(2) needs it exclusive" : ", reading the same file"), "recorded: " + r.source
                + (xfs ? "; the lock is XFS's, by the log dir's file system (stallscope.LogDir)" : ""));
        long nanos = r.end - r.start;
        chain.doing(String.format(Locale.ROOT, "%s of %s for %s%s", r.op, fileName(r.path), Durations.text(nanos),
                r.bytes >= 0 ? ", " + Counts.of(r.bytes, "byte") : ""), "recorded: " + r.source);
        if (r.behind != null) {
            chain.slowBecause(StallChain.behindText(r.op, r.behind), "recorded: the agent's behind fields");
        } else if (r.bytes > 0 && nanos >= MIN_OVERLAP_NANOS && r.bytes * 1_000_000_000.0 / nanos < COLD_PACE_BYTES_PER_SECOND) {
            chain.slowBecause(String.format(Locale.ROOT, "it moved %s in %s, %.2f MB/s: a disk's pace, not the page cache's, so its"
                    + " pages were most likely read from the device (a cold read)", Counts.of(r.bytes, "byte"), Durations.text(nanos),
                    r.bytes * 1e3 / nanos), "inferred: the read's bytes and time");
        }
        return chain;
    }

    /** "was sampled 7 times in write(2) during the overlap, e.g. frames", or null. */
    private String sampledIn(int thread, long from, long to, IoOp op) {
        int n = 0;
        Map<Integer, Integer> stacks = new HashMap<>();
        for (Samples.Cursor c = rec.samples.lane(thread).cursorAt(from); c.next() && c.time() <= to; ) {
            if (a.classifier().io(c.stack()) != op) continue;
            n += c.weight();
            stacks.merge(c.stack(), c.weight(), Integer::sum);
        }
        if (n == 0) return null;
        int stack = stacks.entrySet().stream().max(Map.Entry.<Integer, Integer>comparingByValue()
                .thenComparing(Map.Entry::getKey, Comparator.reverseOrder())).get().getKey();
        return String.format(Locale.ROOT, "was sampled %s in %s(2) then, e.g. %s", Counts.of(n, "time"), op.syscall,
                a.frames(stack, 8));
    }

    /** "orders-3/00000000000000000000.log": the partition directory and the file. */
    private static String fileName(String path) {
        int slash = path.lastIndexOf('/');
        int dir = slash <= 0 ? -1 : path.lastIndexOf('/', slash - 1);
        return path.substring(dir + 1);
    }

    private static boolean empty(String s) {
        return s == null || s.isEmpty();
    }
}
