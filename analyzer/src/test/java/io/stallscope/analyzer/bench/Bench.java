package io.stallscope.analyzer.bench;

import io.stallscope.analyzer.analysis.StreamingAnalysis;
import io.stallscope.analyzer.cli.Main;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.read.JfrFileReader;
import jdk.jfr.consumer.RecordingFile;
import one.jfr.JfrReader;
import one.jfr.event.Event;

import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Benchmark passes over one recording, one per JVM so they do not share warm-up or heap:
 * {@code report} (the whole CLI: read, analyse, text and JSON), {@code read} (our reader alone, as report reads:
 * chunks decoded on two threads, merged, and dropped a window at a time),
 * {@code jfrreader} (async-profiler's one.jfr.JfrReader over a mapped buffer, a reader per chunk, every event),
 * {@code recordingfile} (jdk.jfr.consumer.RecordingFile, every event). Prints wall time and peak heap.
 * An optional third argument repeats the pass in the same JVM, printing each time: the first is the cold run that
 * the comparisons use, the later ones what is left once the JIT has compiled and the heap is sized.
 */
public final class Bench {
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Path file = Paths.get(args[1]);
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        for (int run = 1; run <= repeats; run++) {
            long t0 = System.nanoTime();
            long events = pass(mode, file);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            long peak = 0;
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP) peak += p.getPeakUsage().getUsed();
            }
            String label = repeats == 1 ? mode : mode + " run " + run;
            System.out.printf("%s: %d ms, %d events, peak heap (sum of pool peaks) %d MB%n", label, ms, events, peak >> 20);
        }
    }

    /** One pass of {@code mode} over {@code file}; the events it read (0 for report). */
    private static long pass(String mode, Path file) throws Exception {
        long events = 0;
        switch (mode) {
            case "report" -> {
                PrintStream devNull = new PrintStream(PrintStream.nullOutputStream());
                int code = Main.run(new String[] {"report", file.toString(), "--json", "/dev/null"}, devNull, System.err);
                if (code != 0) throw new IllegalStateException("report exit " + code);
            }
            case "read" -> {
                // As report reads: chunks on the reader threads, merged in order, and dropped a window at a time
                // (holding them all took 1.8 GB and more system time for page faults than decoding them).
                Recording rec = new Recording();
                JfrFileReader.read(file, rec, null, coming -> {
                    // I/O events count toward the window and go with it, as in report (which keeps the few it reads later).
                    if (rec.samples.size() + (long) rec.locks.size() + rec.io.size() + coming > StreamingAnalysis.WINDOW_EVENTS) {
                        rec.samples.clear();
                        rec.locks.clear();
                        rec.io.retain(0, i -> false);
                    }
                });
                events = rec.files.get(0).eventCounts.values().stream().mapToLong(Long::longValue).sum();
            }
            case "jfrreader" -> {
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r"); FileChannel ch = raf.getChannel()) {
                    // One reader per chunk: JfrReader 4.2 keeps a chunk's custom event ids (profiler.ProcessSample,
                    // jdk.CPULoad...) into the next chunk, so a JDK chunk after an async-profiler chunk (jfrsync files
                    // repeated, the agent's captures) has one of its types parsed as ProcessSample and it throws.
                    // Each chunk mapped on its own, as the analyzer maps them: a file over 2 GB has no one mapping.
                    ByteBuffer header = ByteBuffer.allocate(16);
                    for (long pos = 0; pos < ch.size(); ) {
                        header.clear();
                        ch.read(header, pos);
                        long size = header.getLong(8);
                        JfrReader jr = new JfrReader(ch.map(FileChannel.MapMode.READ_ONLY, pos, size));
                        for (Event e; (e = jr.readEvent()) != null; ) events++;
                        pos += size;
                    }
                }
            }
            case "recordingfile" -> {
                try (RecordingFile rf = new RecordingFile(file)) {
                    while (rf.hasMoreEvents()) {
                        rf.readEvent();
                        events++;
                    }
                }
            }
            default -> throw new IllegalArgumentException(mode);
        }
        return events;
    }
}
