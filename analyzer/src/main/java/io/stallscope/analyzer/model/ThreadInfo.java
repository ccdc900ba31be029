package io.stallscope.analyzer.model;

/** A thread of one recorded JVM; threads of different files are different threads. */
public record ThreadInfo(int id, int file, String name, long javaId, long osId) {
}
