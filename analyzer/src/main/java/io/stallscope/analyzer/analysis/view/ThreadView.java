package io.stallscope.analyzer.analysis.view;

/**
 * A thread as the reports show it: its Kafka role, a lane label short enough for the timeline yet told apart
 * from its neighbours', its sample count, the time it waited for locks and the time others waited while it held
 * one.
 */
public record ThreadView(int id, int file, String name, String lane, String role, long javaId, long osId,
                         long samples, long waitNanos, long heldNanos) {
}
