package io.stallscope.analyzer.cli;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.analysis.StreamingAnalysis;
import io.stallscope.analyzer.analysis.view.ReportView;
import io.stallscope.analyzer.analysis.view.ReportViews;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.render.HtmlReport;
import io.stallscope.analyzer.render.JsonReport;
import io.stallscope.analyzer.render.TerminalText;
import io.stallscope.analyzer.render.TextReport;
import io.stallscope.analyzer.util.Timing;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** {@code analyzer report}: reads the recordings, analyses them together, prints and writes the reports. */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Names lock waits and storage stalls in JFR recordings, who held each lock and what it did.",
                "Reads async-profiler and JDK Flight Recorder files; several files (a fleet's) are analysed together."},
        footer = {"", "T is an offset from the recording's start (30s, 1500ms, 2m) or a time (04:25:09.5, 2024-05-01T04:25:09Z).",
                "DURATION is a number with a unit: 10ms, 1.5s, 500us (a bare number means milliseconds).",
                "Exit status: 0 done, 1 an input could not be read, 2 usage error."})
public final class ReportCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "FILE", description = "JFR recordings, plain or gzipped")
    List<Path> files;

    @Option(names = "--html", paramLabel = "OUT.html", description = "write a self-contained interactive timeline (- for standard output)")
    Path html;

    @Option(names = "--json", paramLabel = "OUT.json", description = "write the machine-readable report (- for standard output)")
    Path json;

    @Option(names = "--threads", paramLabel = "REGEX", description = "only waiting threads whose name matches")
    String threads;

    @Option(names = "--from", paramLabel = "T", description = "ignore what happened before T")
    String from;

    @Option(names = "--to", paramLabel = "T", description = "ignore what happened after T")
    String to;

    @Option(names = "--min-wait", paramLabel = "DURATION", description = "ignore waits shorter than this (default: 0)")
    String minWait;

    @Option(names = "--slow-safepoint", paramLabel = "DURATION",
            description = "report safepoints whose time to safepoint was at least this (default: 50ms)")
    String slowSafepoint;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "how many locks and findings to report (default: ${DEFAULT-VALUE})")
    int top;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private PrintStream out = System.out;
    private PrintStream err = System.err;

    void streams(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** {@code -} names standard output, as it does for most Unix tools. */
    private static boolean isStdout(Path p) {
        return p != null && p.toString().equals("-");
    }

    /** The report's stream: the file, or standard output left open for what follows. */
    private OutputStream open(Path p) throws IOException {
        if (!isStdout(p)) return Files.newOutputStream(p);
        return new java.io.FilterOutputStream(out) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
            }

            @Override
            public void close() throws IOException {
                flush();
            }
        };
    }

    @Override
    public Integer call() {
        Pattern threadPattern;
        long minWaitNanos;
        long slowSafepointNanos;
        try {
            threadPattern = threads == null ? null : Pattern.compile(threads);
            minWaitNanos = minWait == null ? 0 : TimeArgs.duration(minWait, 1_000_000L);
            slowSafepointNanos = slowSafepoint == null ? Options.SLOW_SAFEPOINT_NANOS : TimeArgs.duration(slowSafepoint, 1_000_000L);
            if (top < 1) throw new IllegalArgumentException("--top must be at least 1");
            if (isStdout(json) && isStdout(html)) throw new IllegalArgumentException("only one of --json and --html can write to standard output");
            // Check time syntax before the (possibly long) read.
            if (from != null) TimeArgs.instant(from, 0);
            if (to != null) TimeArgs.instant(to, 0);
            // Two times of one kind (offsets, or clock times) compare without the recording: say so before the read.
            if (from != null && to != null && TimeArgs.sameKind(from, to) && TimeArgs.instant(from, 0) > TimeArgs.instant(to, 0)) {
                throw new IllegalArgumentException("--from " + from + " is after --to " + to);
            }
        } catch (PatternSyntaxException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "invalid --threads regex: " + e.getDescription());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }

        Recording rec = new Recording();
        // -Dstallscope.timing=true: elapsed time per phase on stderr (for benchmarks).
        boolean timing = Timing.enabled();
        long t0 = System.nanoTime();
        long tRead = 0;
        long tAnalysis = 0;
        Analysis a;
        ReportView view;
        // Options from what was read so far: relative --from/--to count from the start seen when the first window is analysed.
        Pattern windowThreads = threadPattern;
        long windowMinWait = minWaitNanos;
        long windowSlowSafepoint = slowSafepointNanos;
        StreamingAnalysis stream = new StreamingAnalysis(rec, r -> {
            long begin = r.startNanos();
            return new Options(windowThreads, from == null ? Long.MIN_VALUE : TimeArgs.instant(from, begin),
                    to == null ? Long.MAX_VALUE : TimeArgs.instant(to, begin), windowMinWait, top, windowSlowSafepoint);
        });
        try (Progress progress = Progress.start(err, files)) {
            for (Path f : files) {
                try {
                    progress.file(f);
                    JfrFileReader.read(f, rec, progress::bytes, stream::chunkComing);
                } catch (NoSuchFileException e) {
                    progress.close();
                    err.println("analyzer: " + f + ": no such file");
                    return Main.INPUT_ERROR;
                } catch (AccessDeniedException e) {
                    progress.close();
                    err.println("analyzer: " + f + ": permission denied");
                    return Main.INPUT_ERROR;
                } catch (IOException e) {
                    progress.close();
                    err.println("analyzer: " + f + ": " + Main.oneLine(e.getMessage()));
                    return Main.INPUT_ERROR;
                }
            }
            tRead = System.nanoTime();
            progress.phase("analysing " + stream.samplesRead() + " samples");
            long start = rec.startNanos();
            long fromNanos = from == null ? Long.MIN_VALUE : TimeArgs.instant(from, start);
            long toNanos = to == null ? Long.MAX_VALUE : TimeArgs.instant(to, start);
            String outside = TimeArgs.outside(from, fromNanos, to, toNanos, start, rec.endNanos());
            if (outside != null) {
                progress.close();
                throw new CommandLine.ParameterException(spec.commandLine(), outside);
            }
            Options o = new Options(threadPattern, fromNanos, toNanos, minWaitNanos, top, slowSafepointNanos);
            a = stream.finish(o);
            view = ReportViews.of(a);
            tAnalysis = System.nanoTime();
            if (json != null || html != null) progress.phase("writing the reports");
            try {
                if (json != null) {
                    try (OutputStream s = open(json)) {
                        JsonReport.write(view, s);
                    }
                }
                if (html != null) {
                    try (OutputStream s = open(html)) {
                        HtmlReport.write(view, s);
                    }
                }
            } catch (IOException e) {
                progress.close();
                err.println("analyzer: cannot write report: " + Main.oneLine(e.toString()));
                return Main.INPUT_ERROR;
            }
        }
        for (var f : rec.files) {
            // Warnings may quote the recording (an event type's name): escaped as the text report is.
            for (String w : f.warnings) err.println(TerminalText.escape("analyzer: warning: " + f.path + ": " + w));
        }
        // A report on standard output is the output: the text report would make it unreadable.
        if (!isStdout(json) && !isStdout(html)) TextReport.write(view, out);
        out.flush();
        if (timing) {
            long end = System.nanoTime();
            err.printf(java.util.Locale.ROOT, "analyzer: timing: read %.2f s, analysis %.2f s, reports %.2f s, total %.2f s%n",
                    (tRead - t0) / 1e9, (tAnalysis - tRead) / 1e9, (end - tAnalysis) / 1e9, (end - t0) / 1e9);
        }
        return Main.OK;
    }
}
