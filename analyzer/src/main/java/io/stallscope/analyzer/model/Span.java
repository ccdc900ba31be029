package io.stallscope.analyzer.model;

/** A Stallscope agent event ("stallscope.RecordsAppend"): an operation on the owning thread's lane. */
public record Span(String type, long start, long end, int thread, String op, String threadRole, String topic,
                   int partition, long bytes) {
}
