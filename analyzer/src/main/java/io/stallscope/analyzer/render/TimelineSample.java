package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.view.ReportView;
import io.stallscope.analyzer.analysis.view.ThreadView;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Counts;

import java.util.Locale;

/**
 * What the HTML timeline shows of a big recording: the longest waits, spans and I/O events up to a budget, and
 * every {@code sampleStride}-th sample of each lane, so the page stays openable whatever the file's size. The
 * reports say so whenever something was left out; the totals (contentions, findings) always count everything.
 */
record TimelineSample(long waits, long waitsShown, long samples, int sampleStride, long spans, long spansShown,
                      long io, long ioShown) {
    static final int SAMPLE_BUDGET = 400_000;
    static final int WAIT_BUDGET = 60_000;

    static TimelineSample of(ReportView v) {
        Analysis a = v.analysis();
        Recording rec = a.recording();
        long from = Math.max(rec.startNanos(), a.options().from());
        long to = Math.min(rec.endNanos(), a.options().to());
        long waits = 0;
        for (Contention c : a.contentions()) waits += c.waitCount;
        long samples = 0;
        for (ThreadView t : v.lanes()) {
            Samples.Lane lane = rec.samples.lane(t.id());
            samples += lane.firstAtOrAfter(to + 1) - lane.firstAtOrAfter(from);
        }
        int stride = (int) Math.max(1, (samples + SAMPLE_BUDGET - 1) / SAMPLE_BUDGET);
        long spans = 0;
        for (Span s : rec.spans) {
            if (s.end() >= from && s.start() <= to) spans++;
        }
        // Those dropped after their window (see StreamingAnalysis) count too: the timeline shows the same first ones.
        long io = a.sampling().ioDroppedInRange();
        for (int i = 0; i < rec.io.size(); i++) {
            if (rec.io.end(i) >= from && rec.io.start(i) <= to) io++;
        }
        return new TimelineSample(waits, Math.min(a.waits().size(), WAIT_BUDGET), samples, stride, spans,
                Math.min(spans, WAIT_BUDGET), io, Math.min(io, WAIT_BUDGET + 1));
    }

    /**
     * One sentence when the recording was analysed window by window (see StreamingAnalysis): the totals count
     * everything, the examples and evidence are a bounded sample; null when it was analysed whole.
     */
    static String analysisSentence(Analysis a) {
        Analysis.Sampling s = a.sampling();
        if (!s.sampled()) return null;
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "Analysed in %s of chunks: the totals count all %,d samples, %,d lock events and %,d waits; the examples show the longest %,d of %,d waits",
                Counts.of(s.windows(), "window"), s.samples(), s.lockEvents(), s.waits(), a.waits().size(), s.waits()));
        if (s.sampleStride() > 1) {
            b.append(String.format(Locale.ROOT, ", and the evidence and timeline read every %d%s sample of each thread",
                    s.sampleStride(), ordinal(s.sampleStride())));
        }
        b.append('.');
        long ioKept = a.recording().io.size();
        if (ioKept < s.ioEvents()) {
            b.append(String.format(Locale.ROOT, " Of %,d I/O events, %,d were kept after their window: every fsync and file read, every write"
                    + " of 20 ms or more, and the timeline's first.", s.ioEvents(), ioKept));
        }
        return b.toString();
    }

    boolean sampled() {
        return waitsShown < waits || sampleStride > 1 || spansShown < spans || ioShown < io;
    }

    /** One sentence for the text report and the HTML page; null when the timeline shows everything. */
    String sentence() {
        if (!sampled()) return null;
        StringBuilder s = new StringBuilder("The HTML timeline shows a sample of the events:");
        String sep = " ";
        if (waitsShown < waits) {
            s.append(sep).append(String.format(Locale.ROOT, "the longest %,d of %,d waits", waitsShown, waits));
            sep = ", ";
        }
        if (sampleStride > 1) {
            s.append(sep).append(String.format(Locale.ROOT, "every %d%s of %,d samples", sampleStride, ordinal(sampleStride), samples));
            sep = ", ";
        }
        if (spansShown < spans) {
            s.append(sep).append(String.format(Locale.ROOT, "the longest %,d of %,d agent spans", spansShown, spans));
            sep = ", ";
        }
        if (ioShown < io) s.append(sep).append(String.format(Locale.ROOT, "the first %,d of %,d I/O events", ioShown, io));
        return s.append("; the totals count them all.").toString();
    }

    private static String ordinal(int n) {
        if (n % 100 >= 11 && n % 100 <= 13) return "th";
        return switch (n % 10) {
            case 1 -> "st";
            case 2 -> "nd";
            case 3 -> "rd";
            default -> "th";
        };
    }
}
