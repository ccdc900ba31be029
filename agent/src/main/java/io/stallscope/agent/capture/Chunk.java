package io.stallscope.agent.capture;

import java.nio.file.Path;
import java.util.List;

/** A closed chunk: the wall-clock interval it covers and its files, one per recorder. */
final class Chunk {
    final long startMillis;
    final long endMillis;
    final List<Path> files;

    Chunk(long startMillis, long endMillis, List<Path> files) {
        this.startMillis = startMillis;
        this.endMillis = endMillis;
        this.files = files;
    }
}
