package io.stallscope.it.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** {@code analyzer report CAPTURE --html OUT}: the analyzer's launcher, as an operator runs it. */
final class AnalyzerStep {
    /** The analyzer's exit code, its text report, and where it was written. */
    record Report(int exitCode, String text, Path textFile, Path html) {
    }

    /** " 1. [stalled-op-under-lock] ...": a finding's headline. */
    private static final Pattern FINDING = Pattern.compile("^ *\\d+\\. \\[");

    private final Path launcher;

    AnalyzerStep(Path launcher) {
        this.launcher = launcher;
    }

    Path launcher() {
        return launcher;
    }

    Report run(List<Path> captures, Path outDir) throws IOException, InterruptedException {
        Files.createDirectories(outDir);
        Path html = outDir.resolve("timeline.html");
        Path text = outDir.resolve("report.txt");
        List<String> cmd = new ArrayList<>(List.of(launcher.toString(), "report"));
        captures.forEach(c -> cmd.add(c.toString()));
        cmd.addAll(List.of("--html", html.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(text.toFile()).start();
        OwnProcesses.register(p);
        try {
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return new Report(-1, "analyzer did not finish within 5 minutes", text, html);
            }
        } finally {
            OwnProcesses.unregister(p);
        }
        return new Report(p.exitValue(), Files.readString(text, StandardCharsets.UTF_8), text, html);
    }

    /**
     * The report's first line (what was read), each finding's headline, and the details of the first
     * finding, each cut to {@code width}: the whole report runs to a hundred lines and more.
     */
    static List<String> headlines(String report, int width) {
        List<String> out = new ArrayList<>();
        List<String> lines = report.lines().toList();
        boolean inFindings = false;
        int findings = 0;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (i == 0 || (!inFindings && !l.isBlank() && !l.startsWith(" ") && !FINDING.matcher(l).find())) {
                out.add(cut(l, width));
                inFindings = l.startsWith("Findings");
                continue;
            }
            boolean finding = FINDING.matcher(l).find();
            if (inFindings && !finding && !l.isBlank() && !l.startsWith(" ")) {
                break; // the next section (contended locks, agent ops): in the file
            }
            if (inFindings && finding) {
                findings++;
                out.add(cut(l, width));
            } else if (inFindings && findings == 1 && l.trim().startsWith("- ")) {
                out.add(cut(l, width));
            }
        }
        return out;
    }

    private static String cut(String line, int width) {
        return line.length() <= width ? line : line.substring(0, width - 4) + " ...";
    }
}
