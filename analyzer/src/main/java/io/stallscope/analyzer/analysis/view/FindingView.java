package io.stallscope.analyzer.analysis.view;

import io.stallscope.analyzer.analysis.Finding;

import java.util.List;

/**
 * A finding with the moment it points at ({@code atNanos} from the recording's start, or -1 when it has none)
 * and the threads to show there, so a report can link it to its place in the timeline.
 */
public record FindingView(Finding finding, long atNanos, List<String> threads) {
    public boolean hasMoment() {
        return atNanos >= 0;
    }
}
