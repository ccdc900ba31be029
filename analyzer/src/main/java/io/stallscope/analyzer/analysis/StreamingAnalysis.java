package io.stallscope.analyzer.analysis;

import io.stallscope.analyzer.analysis.findings.SpanStalls;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.holders.LogLockPartitions;
import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.analysis.waits.LongestWaits;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.KeptSamples;
import io.stallscope.analyzer.model.Recording;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Analyses a recording window of chunks by window as the reader merges them, so memory is bounded by the window,
 * not by the file. A JFR chunk is self-contained, so once the next chunk would take a window past
 * {@link #WINDOW_EVENTS} samples and lock events its waits are found and attributed from its own samples and
 * events, folded into the per-lock tallies,
 * the longest waits (a bounded, deterministic set) and the span stalls, and its samples and events are dropped
 * except every n-th sample of each thread ({@link KeptSamples}) for what reads samples afterwards. A recording
 * that fits one window is analysed exactly as a whole.
 * <p>
 * What a window cannot see: a wait that crosses a window's edge counts as two; a recorded lock event written in
 * a later window (JFR writes it when the wait ends) does not hide the samples of its wait in an earlier one; the
 * sampling interval is estimated per window.
 */
public final class StreamingAnalysis {
    /**
     * Samples plus lock events that make a window, at most (but for a chunk bigger than that alone): about 200 MB of
     * heap while analysed. A power of two, the capacity the lock-event columns double to: a window of 3 M events
     * let them grow to 4 M, and kept 300 MB live under -Xmx512m, a full collection every window.
     */
    public static final long WINDOW_EVENTS = Long.getLong("stallscope.window.events", 1L << 21);
    /** Samples kept over all windows, for evidence and the timeline. */
    static final int KEPT_SAMPLES = Integer.getInteger("stallscope.kept.samples", 2_000_000);
    /** Longest waits kept as examples once the recording is analysed in windows (the HTML shows 60 k at most). */
    static final int WINDOWED_RETAINED_WAITS = 60_000;

    private final Recording rec;
    private final Function<Recording, Options> options;
    private final StackClassifier classifier;
    private final Map<String, Contention> byLock = new LinkedHashMap<>();
    private final long windowEvents;
    private final KeptSamples kept;
    private List<Wait> retained = new ArrayList<>();
    private SpanStalls spans;
    private LogLockPartitions.Tally logs;
    private long[] intervals = new long[0];
    private Options windowOptions;
    private int windows;

    /** {@code options} gives the options from the recording read so far (relative --from/--to need its start). */
    public StreamingAnalysis(Recording rec, Function<Recording, Options> options) {
        this(rec, options, WINDOW_EVENTS, KEPT_SAMPLES);
    }

    /** With a window of {@code windowEvents} samples and lock events, keeping at most {@code keptSamples} samples. */
    public StreamingAnalysis(Recording rec, Function<Recording, Options> options, long windowEvents, int keptSamples) {
        this.rec = rec;
        this.options = options;
        this.windowEvents = windowEvents;
        this.kept = new KeptSamples(keptSamples);
        this.classifier = new StackClassifier(rec.frames, rec.stacks);
    }

    /**
     * Told, before each chunk is merged, how many samples and lock events it brings: analyses the window when they
     * would take it past its bound, so that a window never holds more (a chunk bigger than a window makes one alone).
     */
    public void chunkComing(long events) {
        long held = held();
        if (held == 0 || held + events <= windowEvents) return;
        analyseWindow();
    }

    private long held() {
        return rec.samples.size() + (long) rec.locks.size();
    }

    /** Analyses the window held, folds it in, and drops its samples (but those kept) and events. */
    private void analyseWindow() {
        // Options are fixed by the first window: a later chunk may start earlier, but the windows must agree.
        if (windowOptions == null) windowOptions = options.apply(rec);
        // The longest waits of the windows before bound this one's: a wait no longer than the shortest kept is
        // never kept, which spares most of a big recording's millions of waits the pruning.
        if (retained.size() > WINDOWED_RETAINED_WAITS) {
            retained = LongestWaits.longest(List.of(LongestWaits.of(retained)), WINDOWED_RETAINED_WAITS);
        }
        fold(Analyzer.window(rec, windowOptions, classifier, WINDOWED_RETAINED_WAITS, LongestWaits.floorOf(retained, WINDOWED_RETAINED_WAITS)));
        kept.keep(rec.samples);
        rec.samples.clear();
        rec.locks.clear();
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
            fold(Analyzer.window(rec, used, classifier, windowed ? WINDOWED_RETAINED_WAITS : Analyzer.RETAINED_WAITS));
        }
        long waits = 0;
        for (Contention c : byLock.values()) waits += c.waitCount;
        Analysis.Sampling sampling;
        if (windowed) {
            kept.keep(rec.samples);
            rec.samples.clear();
            kept.addTo(rec.samples);
            rec.locks.clear();
            sampling = new Analysis.Sampling(true, windows, kept.seen(), kept.stride(), rec.locks.seen(), waits, kept.perThread());
        } else {
            sampling = new Analysis.Sampling(false, 1, rec.samples.size(), 1, rec.locks.seen(), waits, null);
        }
        return Analyzer.finish(rec, used, intervals, classifier, byLock, retained, spans, logs, sampling);
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
