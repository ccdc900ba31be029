package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.findings.SafepointReport;
import io.stallscope.analyzer.analysis.holders.SlowSafepoint;
import io.stallscope.analyzer.analysis.view.FindingView;
import io.stallscope.analyzer.analysis.view.ReportView;
import io.stallscope.analyzer.analysis.view.ReportViews;
import io.stallscope.analyzer.analysis.view.ThreadStates;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.model.State;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The report an operator reads on a terminal: the most important finding first, then the locks; when there is
 * neither, what each thread was doing. Long lines (stacks, thread lists) are folded to {@link TextWrap#WIDTH}.
 * Every line goes out through {@link TerminalLines}, which escapes the recording's control characters.
 */
public final class TextReport {
    private static final int WIDTH = TextWrap.WIDTH;

    private TextReport() {
    }

    public static void write(Analysis a, PrintStream out) {
        write(ReportViews.of(a), out);
    }

    public static void write(ReportView v, PrintStream stream) {
        TerminalLines out = new TerminalLines(stream);
        Analysis a = v.analysis();
        Recording rec = a.recording();
        for (SourceFile f : rec.files) {
            print(out, "", "    ", String.format(Locale.ROOT, "%s: %s, %s, %.1f s, %s every %.1f ms, %s", f.path,
                    String.join("+", f.producers), Counts.of(f.chunks, "chunk"), (f.endNanos - f.startNanos) / 1e9,
                    Counts.of(rec.threads.stream().filter(t -> t.file() == f.index).mapToLong(t -> a.samplesOf(t.id())).sum(), "sample"),
                    f.sampleIntervalNanos / 1e6,
                    Counts.of(f.eventCounts.getOrDefault("jdk.JavaMonitorEnter", 0L) + f.eventCounts.getOrDefault("jdk.ThreadPark", 0L), "lock event")));
            for (String w : f.warnings) print(out, "  warning: ", "    ", w);
        }
        String windowed = TimelineSample.analysisSentence(a);
        if (windowed != null) print(out, "", "    ", windowed);
        String sampled = TimelineSample.of(v).sentence();
        if (sampled != null) print(out, "", "    ", sampled);
        out.blank();
        if (safepoints(a, out)) out.blank();
        if (v.findings().isEmpty()) {
            out.line("No lock contention or storage stall found.");
            inferred(v, out);
            states(v, out);
            spans(a, out);
            return;
        }
        out.line("Findings, most important first:");
        int i = 1;
        for (FindingView fv : v.findings()) {
            Finding f = fv.finding();
            print(out, String.format("%2d. [%s] ", i++, f.kind()), "    ", f.summary());
            if (f.harm().hurt()) print(out, "    clients: ", "      ", f.harm().text());
            for (String e : f.evidence()) print(out, "      - ", "        ", e);
        }
        if (!v.recordedContentions().isEmpty()) {
            out.blank();
            out.line("Contended locks (from lock events), by impact (time waited x threads):");
            locks(v, v.recordedContentions(), out);
        }
        inferred(v, out);
        spans(a, out);
    }

    /** The locks only samples show, under their own heading; or, with no lock events, that there are none to show. */
    private static void inferred(ReportView v, TerminalLines out) {
        if (!v.inferredContentions().isEmpty()) {
            out.blank();
            out.line(v.lockEvents() == 0
                    ? "Inferred contention (estimates: this recording has no lock events; read from samples at lock sites):"
                    : "Inferred contention (estimates: no lock event shows these; read from samples at lock sites):");
            locks(v, v.inferredContentions(), out);
        } else if (v.lockEvents() == 0) {
            out.blank();
            out.line("This recording has no lock events: waits and holders can only be estimated from samples, and none were.");
        }
    }

    /** Each lock with where its waits came from, and every holder explaining at least 10% of them. */
    private static void locks(ReportView v, List<Contention> cs, TerminalLines out) {
        Analysis a = v.analysis();
        Recording rec = a.recording();
        int i = 1;
        for (Contention c : cs) {
            print(out, String.format("%2d. ", i++), "      ", String.format("%s: %s waited over %s by %s (longest %s); source: %s",
                    c.label, Durations.text(c.totalWaitNanos), Counts.of(c.waitCount, "wait"), Counts.of(c.waiters().size(), "thread"),
                    Durations.text(c.longestWaitNanos), source(c)));
            if (!c.logs.isEmpty()) print(out, "      ", "        ", logs(c));
            List<Contention.HolderShare> holders = c.mainHolders();
            if (c.holders().isEmpty()) {
                out.line("      holder: unknown (no sample caught a thread inside the locked method)");
            } else if (holders.isEmpty()) {
                out.line("      holder: " + c.noMainHolder());
            }
            boolean first = true;
            for (Contention.HolderShare hs : holders) {
                Holder h = hs.telling;
                print(out, "      holder: ", "          ", String.format(Locale.ROOT, "%s (source: %s%s; %.0f%% of the waiting, %s)%s",
                        rec.threadName(hs.thread), hs.source(),
                        hs.inferredCount > 0 ? String.format(Locale.ROOT, ", confidence %.2f", hs.confidence()) : "",
                        100 * c.share(hs), Counts.of(hs.count, "wait"), h.op().storage() ? " in " + h.op().syscall + "(2)" : ""));
                if (first) {
                    for (String fr : a.frameList(h.stack(), 8)) print(out, "          at ", "             ", fr);
                }
                first = false;
            }
            StringBuilder ws = new StringBuilder();
            c.waiters().stream().limit(6).forEach(s -> ws.append(ws.length() == 0 ? "" : ", ")
                    .append(rec.threadName(s.thread)).append(' ').append(Durations.text(s.nanos)));
            if (c.waiters().size() > 6) ws.append(", ... ").append(c.waiters().size() - 6).append(" more");
            print(out, "      waiters: ", "        ", ws.toString());
        }
    }

    /**
     * "lock of log orders-0 (412 of 677 waits, 93% of the time waited)", or of several logs each with its waits and
     * time: the topic-partitions the holders' agent ops were on during the waits. Null when none was.
     */
    static String logs(Contention c) {
        if (c.logs.isEmpty()) return null;
        StringBuilder sb = new StringBuilder(c.logs.size() == 1 ? "lock of log " : "lock of logs ");
        for (int i = 0; i < c.logs.size(); i++) {
            var l = c.logs.get(i);
            if (i > 0) sb.append(", ");
            sb.append(l.log()).append(" (").append(l.waits()).append(i == 0 ? " of " + Counts.of(c.waitCount, "wait") + ", " : ", ")
                    .append(Fmt.pct(l.nanos(), c.totalWaitNanos)).append(i == 0 ? " of the time waited)" : ")");
        }
        return sb.toString();
    }

    /** "recorded (12 lock events)", "inferred from 7 samples", or both. */
    static String source(Contention c) {
        String recorded = "recorded (" + Counts.of(c.recordedWaits, "lock event") + ")";
        String inferred = "inferred from " + Counts.of(c.inferredSamples, "sample");
        return c.inferredWaits == 0 ? recorded : c.recordedWaits == 0 ? inferred : recorded + " + " + inferred;
    }

    private static void print(TerminalLines out, String first, String indent, String text) {
        out.wrapped(first, indent, text, WIDTH);
    }

    /**
     * With no finding, what the samples say each thread did (the busiest first): a wall-clock recording with no lock
     * events still shows who ran, who slept, who sat in storage calls.
     */
    private static void states(ReportView v, TerminalLines out) {
        List<ThreadStates> states = v.threadStates();
        if (states.isEmpty()) return;
        int shown = Math.min(states.size(), Math.max(10, v.analysis().options().top()));
        out.blank();
        out.line(String.format("Thread states (%s sampled, the busiest first; samples, then their states):", Counts.of(states.size(), "thread")));
        int nameWidth = (int) Math.min(ReportViews.LANE_LABEL, states.subList(0, shown).stream().mapToInt(s -> s.thread().lane().length()).max().orElse(0));
        for (ThreadStates s : states.subList(0, shown)) {
            List<String> parts = new ArrayList<>();
            for (State st : State.values()) {
                long n = s.of(st);
                if (n > 0) parts.add(String.format(Locale.ROOT, "%s %s", st.name().toLowerCase(Locale.ROOT), Fmt.pct(n, s.total())));
            }
            if (s.storage() > 0) parts.add("in storage calls " + Fmt.pct(s.storage(), s.total()));
            String name = s.thread().lane();
            print(out, String.format(Locale.ROOT, "  %-" + nameWidth + "s %7s  ", name, s.total()), " ".repeat(nameWidth + 13),
                    String.join(", ", parts));
        }
        if (states.size() > shown) out.line("  ... " + Counts.of(states.size() - shown, "more thread") + " (--threads REGEX to see them)");
    }

    /**
     * The slow safepoints, worst first, each with what held it up and whether the recording says so or samples
     * suggest it; nothing when the recording has no safepoint events. Says whether it printed anything.
     */
    private static boolean safepoints(Analysis a, TerminalLines out) {
        SafepointReport r = a.safepoints();
        if (r.recorded() == 0) return false;
        String bound = "time to safepoint " + Durations.text(r.minSyncNanos()) + " or more";
        if (r.slow().isEmpty()) {
            out.line(String.format(Locale.ROOT, "No slow safepoint (%s) among %s.", bound, Counts.of(r.recorded(), "safepoint")));
            return true;
        }
        out.line(String.format(Locale.ROOT, "Slow safepoints (%s), worst first: %s, total stop %s, longest %s",
                bound, Counts.of(r.slow().size(), "slow safepoint"), Durations.text(r.totalSyncNanos()), Durations.text(r.longestSyncNanos())));
        Recording rec = a.recording();
        int shown = Math.min(r.slow().size(), Math.max(10, a.options().top()));
        for (SlowSafepoint s : r.slow().subList(0, shown)) {
            print(out, String.format(Locale.ROOT, "  at +%.3f s: ", (s.safepoint().syncStart() - rec.startNanos()) / 1e9), "      ",
                    s.sentence());
        }
        if (r.slow().size() > shown) out.line("  ... " + (r.slow().size() - shown) + " more (all in --json)");
        return true;
    }

    /** The agent's ops, longest first: op, duration, thread, partition, bytes, when. */
    private static void spans(Analysis a, TerminalLines out) {
        List<Span> spans = new ArrayList<>(a.spansInView());
        if (spans.isEmpty()) return;
        spans.sort(Comparator.comparingLong(Span::duration).reversed().thenComparingLong(Span::start));
        Recording rec = a.recording();
        int shown = Math.min(spans.size(), Math.max(10, a.options().top()));
        out.blank();
        out.line(String.format("Agent ops (%s, longest first):", Counts.of(spans.size(), "span")));
        for (Span s : spans.subList(0, shown)) {
            print(out, "  ", "      ", String.format(Locale.ROOT, "%-16s %10s  at +%.3f s  %s%s%s%s", s.opName(), Durations.text(s.duration()),
                    (s.start() - rec.startNanos()) / 1e9, rec.threadName(s.thread()),
                    s.topicPartition() == null ? "" : "  " + s.topicPartition(),
                    s.bytes() >= 0 ? "  " + s.bytes() + " bytes" : "", s.failed() ? "  failed" : ""));
        }
        if (spans.size() > shown) out.line("  ... " + (spans.size() - shown) + " more (all in --json)");
    }
}
