package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Contention;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.Holder;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;

import io.stallscope.analyzer.model.Span;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The report an operator reads on a terminal: the most important finding first, then the locks. */
public final class TextReport {
    private TextReport() {
    }

    public static void write(Analysis a, PrintStream out) {
        Recording rec = a.recording();
        for (SourceFile f : rec.files) {
            out.printf(Locale.ROOT, "%s: %s, %d chunk%s, %.1f s, %d samples every %.1f ms, %d lock events%n", f.path,
                    String.join("+", f.producers), f.chunks, f.chunks == 1 ? "" : "s", (f.endNanos - f.startNanos) / 1e9,
                    rec.threads.stream().filter(t -> t.file() == f.index).mapToInt(t -> rec.samples.lane(t.id()).size()).sum(),
                    f.sampleIntervalNanos / 1e6,
                    f.eventCounts.getOrDefault("jdk.JavaMonitorEnter", 0L) + f.eventCounts.getOrDefault("jdk.ThreadPark", 0L));
            for (String w : f.warnings) out.println("  warning: " + w);
        }
        out.println();
        if (a.findings().isEmpty()) {
            out.println("No lock contention or storage stall found.");
            spans(a, out);
            return;
        }
        out.println("Findings, most important first:");
        int i = 1;
        for (Finding f : JsonReport.top(a.findings(), a.options().top())) {
            out.printf("%2d. [%s] %s%n", i++, f.kind(), f.summary());
            for (String e : f.evidence()) out.println("      - " + e);
        }
        out.println();
        out.println("Contended locks:");
        i = 1;
        for (Contention c : JsonReport.top(a.contentions(), a.options().top())) {
            out.printf("%2d. %s: %s waited over %d waits by %d threads (longest %s)%n", i++, c.label,
                    Fmt.msText(c.totalWaitNanos), c.waitCount, c.waiters().size(), Fmt.msText(c.longestWaitNanos));
            Holder h = c.mainHolder();
            if (h == null) {
                out.println("      holder: unknown (no sample caught a thread inside the locked method)");
            } else {
                out.printf(Locale.ROOT, "      holder: %s (%s%s)%s%n", rec.threadName(h.thread()), h.how(),
                        h.how().equals(Holder.INFERRED) ? String.format(Locale.ROOT, ", confidence %.2f", h.confidence()) : "",
                        h.op().storage() ? " in " + h.op().syscall + "(2)" : "");
                for (String fr : a.frameList(h.stack(), 8)) out.println("          at " + fr);
            }
            StringBuilder ws = new StringBuilder();
            c.waiters().stream().limit(6).forEach(s -> ws.append(ws.length() == 0 ? "" : ", ")
                    .append(rec.threadName(s.thread)).append(' ').append(Fmt.msText(s.nanos)));
            if (c.waiters().size() > 6) ws.append(", ... ").append(c.waiters().size() - 6).append(" more");
            out.println("      waiters: " + ws);
        }
        spans(a, out);
    }

    /** The agent's ops, longest first: op, duration, thread, partition, bytes, when. */
    private static void spans(Analysis a, PrintStream out) {
        List<Span> spans = new ArrayList<>(JsonReport.spansInView(a));
        if (spans.isEmpty()) return;
        spans.sort(Comparator.comparingLong(Span::duration).reversed().thenComparingLong(Span::start));
        Recording rec = a.recording();
        int shown = Math.min(spans.size(), Math.max(10, a.options().top()));
        out.println();
        out.printf("Agent ops (%d span%s, longest first):%n", spans.size(), spans.size() == 1 ? "" : "s");
        for (Span s : spans.subList(0, shown)) {
            out.printf(Locale.ROOT, "  %-16s %10s  at +%.3f s  %s%s%s%s%n", s.opName(), Fmt.msText(s.duration()),
                    (s.start() - rec.startNanos()) / 1e9, rec.threadName(s.thread()),
                    s.topicPartition() == null ? "" : "  " + s.topicPartition(),
                    s.bytes() >= 0 ? "  " + s.bytes() + " bytes" : "", s.failed() ? "  failed" : "");
        }
        if (spans.size() > shown) out.println("  ... " + (spans.size() - shown) + " more (all in --json)");
    }
}
