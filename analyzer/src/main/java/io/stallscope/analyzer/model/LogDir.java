package io.stallscope.analyzer.model;

/**
 * The Stallscope agent's {@code stallscope.LogDir} event: a Kafka log dir of the broker that wrote file {@code file}
 * and the file system it is on ({@code fileSystem} "xfs", "ext4", ... or "unknown"). Written at every chunk, so a
 * recording holds it many times.
 */
public record LogDir(int file, String logDir, String fileSystem, String device, String mountPoint) {
    public static final String EVENT = "stallscope.LogDir";
}
