package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Analysis;

import java.io.IOException;
import java.io.OutputStream;

/** Placeholder until the timeline lands. */
public final class HtmlReport {
    private HtmlReport() {
    }

    public static void write(Analysis a, OutputStream out) throws IOException {
        out.write("<!doctype html><title>stallscope</title>".getBytes());
    }
}
