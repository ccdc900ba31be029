package io.stallscope.analyzer.model;

/** A recorded file or socket operation (jdk.FileWrite, jdk.FileForce, jdk.SocketRead...). */
public record IoEvent(String type, long start, long end, int thread, int stack, String target, long bytes) {
}
