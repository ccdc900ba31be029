package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.analysis.findings.FindingsIo;
import io.stallscope.analyzer.analysis.findings.SafepointReport;
import io.stallscope.analyzer.analysis.findings.SpanStalls;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.holders.LogLockPartitions;
import io.stallscope.analyzer.analysis.holders.SampledHolders;
import io.stallscope.analyzer.analysis.stacks.SafepointStacks;
import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.analysis.waits.LongestWaits;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.IoEvents;
import io.stallscope.analyzer.model.KeptSamples;
import io.stallscope.analyzer.model.Recording;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * Analyses a recording window of chunks by window as the reader merges them, so memory is bounded by the window,
 * not by the file. A JFR chunk is self-contained, so once the next chunk would take a window past
 * {@link #WINDOW_EVENTS} samples, lock events and I/O events, its waits are found and attributed from its own
 * samples and events, folded into the per-lock tallies,
 * the longest waits (a bounded, deterministic set) and the span stalls, and its samples and events are dropped
 * except every n-th sample of each thread ({@link KeptSamples}) for what reads samples afterwards, and the I/O events
 * a later step reads: every one the findings read ({@link FindingsIo}: fsync, file reads, writes of 20 ms or more)
 * and the first {@link #TIMELINE_IO_EVENTS} in the report's range, which the HTML timeline shows (those dropped in
 * the range are counted, for the timeline's total). A handler storm's millions of short writes go with their
 * window. A recording that fits one window is analysed exactly as a whole.
 * <p>
 * A window's samples taken during a slow safepoint's sync are read for what held it up ({@link SampledHolders})
 * before they go.
 * <p>
 * What a window cannot see: a wait that crosses a window's edge counts as two; a recorded lock event written in
 * a later window (JFR writes it when the wait ends) does not hide the samples of its wait in an earlier one; a
 * holder's samples and I/O events in an earlier window do not name what it did during a wait in a later one; the
 * sampling interval is estimated per window; a safepoint whose events are read in a later window than the samples
 * taken during its sync is not explained by them.
 */
public final class StreamingAnalysis {
    /**
     * Samples plus lock events plus I/O events that make a window, at most (but for a chunk bigger than that alone):
     * about 200 MB of heap while analysed. A power of two, the capacity the lock-event columns double to: a window of
     * 3 M events let them grow to 4 M, and kept 300 MB live under -Xmx512m, a full collection every window. An I/O
     * event costs about what a lock event does (37 bytes in the columns, 12 more in the holders' index).
     */
    public static final long WINDOW_EVENTS = Long.getLong("stallscope.window.events", 1L << 21);
    /** Samples kept over all windows, for evidence and the timeline. */
    static final int KEPT_SAMPLES = Integer.getInteger("stallscope.kept.samples", 2_000_000);
    /** Longest waits kept as examples once the recording is analysed in windows (the HTML shows 60 k at most). */
    static final int WINDOWED_RETAINED_WAITS = 60_000;
    /**
     * I/O events in the report's range kept whatever their type once the recording is analysed in windows: the HTML
     * timeline shows the first 60,001 (its budget, and one more to tell that there were more), so it shows the same
     * events as when every event was kept.
     */
    static final int TIMELINE_IO_EVENTS = 60_001;

    private final Recording rec;
    private final Function<Recording, Options> options;
    private final StackClassifier classifier;
    private final Map<String, Contention> byLock = new LinkedHashMap<>();
    private final long windowEvents;
    private final KeptSamples kept;
    /** What each window's samples showed during the slow safepoints read so far: read before the samples go. */
    private final SampledHolders safepointSamples;
    private List<Wait> retained = new ArrayList<>();
    private SpanStalls spans;
    private LogLockPartitions.Tally logs;
    private long[] intervals = new long[0];
    private Options windowOptions;
    private int windows;
    /** The number in {@code rec.io} of the first I/O event of the window being filled: those before it, earlier windows kept. */
    private int ioFrom;
    /** How many more I/O events in the report's range are kept for the timeline. */
    private int timelineIoLeft = TIMELINE_IO_EVENTS;
    /** I/O events in the report's range dropped after their window: the timeline's total counts them. */
    private long ioDroppedInRange;

    /** {@code options} gives the options from the recording read so far (relative --from/--to need its start). */
    public StreamingAnalysis(Recording rec, Function<Recording, Options> options) {
        this(rec, options, WINDOW_EVENTS, KEPT_SAMPLES);
    }

    /** With a window of {@code windowEvents} samples, lock and I/O events, keeping at most {@code keptSamples} samples. */
    public StreamingAnalysis(Recording rec, Function<Recording, Options> options, long windowEvents, int keptSamples) {
        this.rec = rec;
        this.options = options;
        this.windowEvents = windowEvents;
        this.kept = new KeptSamples(keptSamples);
        this.classifier = new StackClassifier(rec.frames, rec.stacks);
        this.safepointSamples = new SampledHolders(new SafepointStacks(rec.frames, rec.stacks));
    }

    /**
     * Told, before each chunk is merged, how many samples, lock events and I/O events it brings: analyses the window
     * when they would take it past its bound, so that a window never holds more (a chunk bigger than a window makes
     * one alone).
     */
    public void chunkComing(long events) {
        long held = held();
        if (held == 0 || held + events <= windowEvents) return;
        analyseWindow();
    }

    /** The window's samples and events: the I/O events earlier windows kept are not the window's. */
    private long held() {
        return rec.samples.size() + (long) rec.locks.size() + (rec.io.size() - ioFrom);
    }

    /** Analyses the window held, folds it in, and drops its samples (but those kept) and events (but those read later). */
    private void analyseWindow() {
        // Options are fixed by the first window: a later chunk may start earlier, but the windows must agree.
        if (windowOptions == null) windowOptions = options.apply(rec);
        // The longest waits of the windows before bound this one's: a wait no longer than the shortest kept is
        // never kept, which spares most of a big recording's millions of waits the pruning.
        if (retained.size() > WINDOWED_RETAINED_WAITS) {
            retained = LongestWaits.longest(List.of(LongestWaits.of(retained)), WINDOWED_RETAINED_WAITS);
        }
        fold(Analyzer.window(rec, windowOptions, classifier, WINDOWED_RETAINED_WAITS, LongestWaits.floorOf(retained, WINDOWED_RETAINED_WAITS),
                ioFrom));
        safepointSamples.observe(rec, rec.safepoints.slow(windowOptions.slowSafepointNanos()));
        kept.keep(rec.samples);
        rec.samples.clear();
        rec.locks.clear();
        keepIo();
    }

    /**
     * Drops the analysed window's I/O events but those the findings read and the timeline's first, counting those
     * dropped in the report's range. The range is the timeline's: the options' clipped to the recording's start and
     * end, which later chunks and files may still widen, so an event in the options' range but outside the
     * recording's so far is kept (whether the timeline counts it is known only at the end): then the count and the
     * timeline's first events are those of keeping every event.
     */
    private void keepIo() {
        Options o = windowOptions;
        long from = Math.max(rec.startNanos(), o.from());
        long to = Math.min(rec.endNanos(), o.to());
        IoEvents io = rec.io;
        IntPredicate read = FindingsIo.read(io);
        io.retain(ioFrom, i -> {
            long start = io.start(i);
            long end = io.end(i);
            if (end < o.from() || start > o.to()) return read.test(i); // never in the range
            if (end < from || start > to) return true; // not in the range yet
            if (timelineIoLeft > 0) {
                timelineIoLeft--;
                return true;
            }
            if (read.test(i)) return true;
            ioDroppedInRange++;
            return false;
        });
        ioFrom = io.size();
    }

    /** Samples read so far, in analysed windows and in the one being filled. */
    public long samplesRead() {
        return kept.seen() + rec.samples.size();
    }

    /** Analyses what is left and returns the whole recording's analysis; {@code o} applies when it was one window. */
    public Analysis finish(Options o) {
        // A recording of one chunk bigger than a window is analysed as a window too: its samples are thinned.
        if (windows == 0 && held() > windowEvents) analyseWindow();
        boolean windowed = windows > 0;
        Options used = windowed ? windowOptions : o;
        // The last window, unless a window analysed above took everything.
        if (!windowed || held() > 0) {
            fold(Analyzer.window(rec, used, classifier, windowed ? WINDOWED_RETAINED_WAITS : Analyzer.RETAINED_WAITS, null, ioFrom));
            safepointSamples.observe(rec, rec.safepoints.slow(used.slowSafepointNanos()));
            // The last window's I/O events go as the others' did: the findings and the reports read what is kept.
            if (windowed) keepIo();
        }
        long waits = 0;
        for (Contention c : byLock.values()) waits += c.waitCount;
        Analysis.Sampling sampling;
        if (windowed) {
            kept.keep(rec.samples);
            rec.samples.clear();
            kept.addTo(rec.samples);
            rec.locks.clear();
            rec.io.trimToSize();
            sampling = new Analysis.Sampling(true, windows, kept.seen(), kept.stride(), rec.locks.seen(), waits, kept.perThread(),
                    rec.io.seen(), ioDroppedInRange);
        } else {
            sampling = new Analysis.Sampling(false, 1, rec.samples.size(), 1, rec.locks.seen(), waits, null, rec.io.seen(), 0);
        }
        return Analyzer.finish(rec, used, intervals, classifier, byLock, retained, spans, logs, sampling,
                SafepointReport.of(rec, used, safepointSamples));
    }

    private void fold(Analyzer.Window w) {
        windows++;
        w.byLock().forEach((k, c) -> {
            Contention mine = byLock.get(k);
            if (mine == null) byLock.put(k, c);
            else mine.merge(c);
        });
        if (spans == null) spans = w.spans();
        else spans.merge(w.spans());
        if (logs == null) logs = w.logs();
        else logs.merge(w.logs());
        List<LongestWaits> parts = new ArrayList<>(w.retained());
        parts.add(0, LongestWaits.of(retained));
        retained = LongestWaits.longest(parts, windows > 1 ? WINDOWED_RETAINED_WAITS : Analyzer.RETAINED_WAITS);
        // A file's interval from the last window that estimated one (0: not sampled in that window).
        if (intervals.length < w.intervals().length) intervals = java.util.Arrays.copyOf(intervals, w.intervals().length);
        for (int f = 0; f < w.intervals().length; f++) {
            if (w.intervals()[f] > 0) intervals[f] = w.intervals()[f];
        }
    }
}
