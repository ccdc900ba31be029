package io.stallscope.it.realdisk;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The independent witness of a blocked writer: the JDK's own {@code jdk.FileWrite} events, recorded by the
 * broker's JVM itself ({@code -XX:StartFlightRecording}) above a threshold, with no agent involved. A
 * request handler's append is FileRecords.append's FileChannel.write, which JFR instruments.
 */
public final class SlowFileWrites {
    /** One write(2) that took at least the threshold. */
    public record Write(Instant start, Duration duration, String thread, String path) {
        public Instant end() {
            return start.plus(duration);
        }
    }

    private SlowFileWrites() {
    }

    /** A JFR configuration that records only file writes, reads and forces of at least {@code threshold}, without stacks. */
    public static Path settings(Path dir, Duration threshold) throws Exception {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<configuration version=\"2.0\" label=\"stallscope-file-io\">\n");
        for (String event : List.of("jdk.FileWrite", "jdk.FileRead", "jdk.FileForce")) {
            xml.append("  <event name=\"").append(event).append("\">\n")
                .append("    <setting name=\"enabled\">true</setting>\n")
                .append("    <setting name=\"stackTrace\">false</setting>\n")
                .append("    <setting name=\"threshold\">").append(threshold.toMillis()).append(" ms</setting>\n")
                .append("  </event>\n");
        }
        xml.append("</configuration>\n");
        Files.createDirectories(dir);
        Path jfc = dir.resolve("file-io.jfc");
        Files.writeString(jfc, xml.toString());
        return jfc;
    }

    /** The JVM option that records with these settings from start to exit into {@code file}. */
    public static String jvmOption(Path settings, Path file) {
        return "-XX:StartFlightRecording=name=stallscope-file-io,settings=" + settings + ",filename=" + file + ",dumponexit=true";
    }

    /**
     * The file writes of at least {@code threshold} in the recording made by request handlers to files whose
     * path contains {@code pathPart}. The duration is checked here too: JFR applies the lowest threshold of all
     * the JVM's recordings to each of them, so an agent capture running beside this one brings shorter writes in.
     */
    public static List<Write> byRequestHandlers(Path recording, String pathPart, Duration threshold) throws Exception {
        List<Write> out = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
            if (!e.getEventType().getName().equals("jdk.FileWrite") || e.getThread() == null
                || e.getDuration().compareTo(threshold) < 0) {
                continue;
            }
            String thread = e.getThread().getJavaName();
            String path = e.getString("path");
            if (thread != null && thread.contains("request-handler") && path != null && path.contains(pathPart)) {
                out.add(new Write(e.getStartTime(), e.getDuration(), thread, path));
            }
        }
        out.sort((a, b) -> a.start().compareTo(b.start()));
        return out;
    }

    /** Those of the writes that began in [from, to). */
    public static List<Write> between(List<Write> writes, Instant from, Instant to) {
        return writes.stream().filter(w -> !w.start().isBefore(from) && w.start().isBefore(to)).toList();
    }

    public static double maxMs(List<Write> writes) {
        return writes.stream().mapToDouble(w -> w.duration().toNanos() / 1e6).max().orElse(0);
    }
}
