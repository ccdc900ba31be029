package com.example.kafka;

import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Analyzer;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.Options;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.render.HtmlReport;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The analyzer run in the test's JVM on the agent's captures: its findings, and its HTML report kept for a reader. */
final class StallReport {
    private StallReport() {
    }

    static List<Finding> findings(List<Path> captures, Path html) throws Exception {
        Recording rec = new Recording();
        for (Path capture : captures) {
            JfrFileReader.read(capture, rec, bytes -> { });
        }
        Analysis analysis = Analyzer.analyze(rec, new Options(null, Long.MIN_VALUE, Long.MAX_VALUE, 0, 10));
        Files.createDirectories(html.getParent());
        try (OutputStream out = Files.newOutputStream(html)) {
            HtmlReport.write(io.stallscope.analyzer.analysis.view.ReportViews.of(analysis), out);
        }
        return analysis.findings();
    }

    static Path dir() {
        return Path.of(System.getProperty("reports.dir", "target/stall-reports"));
    }
}
