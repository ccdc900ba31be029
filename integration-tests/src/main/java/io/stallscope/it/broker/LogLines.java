package io.stallscope.it.broker;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** A broker's log read from a byte offset taken earlier: the lines of one window of a run, not of the whole run. */
public final class LogLines {
    private LogLines() {
    }

    /** The lines written to {@code file} since it was {@code offset} bytes long. */
    public static List<String> since(Path file, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            byte[] b = new byte[(int) Math.max(0, f.length() - offset)];
            f.seek(offset);
            f.readFully(b);
            return new String(b, StandardCharsets.ISO_8859_1).lines().toList();
        }
    }
}
