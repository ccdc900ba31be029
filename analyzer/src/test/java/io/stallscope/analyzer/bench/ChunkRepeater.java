package io.stallscope.analyzer.bench;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Builds a long multi-chunk recording from a short one, for benchmarks: writes the input's chunks again and
 * again, each copy's chunk header moved later by the input's duration. Events keep their ticks, so every copy
 * reads as the next stretch of time, as chunks of a long recording with rotation do. With a step below 1, each
 * copy starts that fraction of the input's span after the previous one, so the copies' time ranges overlap (as
 * async-profiler's chunks in issue 19's 485 MB recording did) while no two chunks are the same bytes.
 *
 * <p>Args: {@code in.jfr out.jfr minBytes [step]} (step: a fraction of the input's span, default 1)
 */
public final class ChunkRepeater {
    public static void main(String[] args) throws Exception {
        byte[] in = Files.readAllBytes(Paths.get(args[0]));
        Path out = Paths.get(args[1]);
        long min = Long.parseLong(args[2]);
        double step = args.length > 3 ? Double.parseDouble(args[3]) : 1.0;
        if (!(step > 0 && step <= 1)) throw new IllegalArgumentException("step must be in (0, 1]: " + args[3]);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        ByteBuffer b = ByteBuffer.wrap(in);
        for (int pos = 0; pos < in.length; pos += (int) b.getLong(pos + 8)) {
            first = Math.min(first, b.getLong(pos + 32));
            last = Math.max(last, b.getLong(pos + 32) + b.getLong(pos + 40));
        }
        long span = (long) ((last - first + 1_000_000L) * step);
        long written = 0;
        try (OutputStream o = Files.newOutputStream(out)) {
            for (int copy = 0; written < min; copy++) {
                ByteBuffer c = ByteBuffer.wrap(in.clone());
                for (int pos = 0; pos < in.length; pos += (int) c.getLong(pos + 8)) {
                    c.putLong(pos + 32, c.getLong(pos + 32) + copy * span);
                }
                o.write(c.array());
                written += in.length;
            }
        }
        System.out.println("wrote " + written + " bytes to " + out);
    }
}
