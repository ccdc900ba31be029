package io.stallscope.it.container;

import io.stallscope.it.broker.HarnessDirs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the container suite found per Kafka version and JDK, written as a Markdown table to
 * {@code target/version-matrix.md} after every recorded cell, so the file always shows this run so
 * far. {@code scripts/containers.sh readme-table} copies it into docs/containers.md. Tests add cells with
 * {@link #record} on {@link #RUN}; a column appears once any row has it (e.g. a mitigations test can
 * add its own column).
 */
public final class VersionMatrix {

    public static final String FILE = "version-matrix.md";

    /** Columns in this order first; others follow in the order first recorded. */
    private static final List<String> KNOWN = List.of("metadata", "instrumented", "skipped", "agent at start", "attach/detach");

    /** This test JVM's matrix, written to {@code target/version-matrix.md}. */
    public static final VersionMatrix RUN = new VersionMatrix(HarnessDirs.target().resolve(FILE));

    private final Map<String, Map<String, String>> rows = new TreeMap<>(VersionMatrix::compareRows);
    private final List<String> columns = new ArrayList<>(KNOWN);
    private final Path file;

    /** {@code file} null: kept in memory only. */
    VersionMatrix(Path file) {
        this.file = file;
    }

    /** Sets one cell of the row for Kafka {@code version} on JDK {@code jdk} (e.g. "17"), and rewrites the file. */
    public synchronized void record(String version, String jdk, String column, String value) {
        if (!columns.contains(column)) {
            columns.add(column);
        }
        rows.computeIfAbsent(version + "|" + jdk, k -> new LinkedHashMap<>()).put(column, value.replace("|", "\\|").replace("\n", " "));
        if (file != null) {
            write(file);
        }
    }

    synchronized String render() {
        List<String> used = columns.stream().filter(c -> rows.values().stream().anyMatch(r -> r.containsKey(c))).toList();
        StringBuilder sb = new StringBuilder();
        sb.append("| Kafka | JDK |");
        used.forEach(c -> sb.append(' ').append(c).append(" |"));
        sb.append("\n|---|---|");
        used.forEach(c -> sb.append("---|"));
        sb.append('\n');
        rows.forEach((key, cells) -> {
            String[] vj = key.split("\\|");
            sb.append("| ").append(vj[0]).append(" | ").append(vj[1]).append(" |");
            used.forEach(c -> sb.append(' ').append(cells.getOrDefault(c, "not run")).append(" |"));
            sb.append('\n');
        });
        return sb.toString();
    }

    public static final String BEGIN = "<!-- version-matrix: begin -->";
    public static final String END = "<!-- version-matrix: end -->";

    /** The table between the markers of a README, or null without markers. */
    public static String tableIn(String readme) {
        int b = readme.indexOf(BEGIN);
        int e = readme.indexOf(END);
        if (b < 0 || e < b) {
            return null;
        }
        return readme.substring(b + BEGIN.length(), e).strip();
    }

    /** Whether any cell so far says FAILED. */
    public synchronized boolean anyFailed() {
        return rows.values().stream().anyMatch(r -> r.values().stream().anyMatch(v -> v.startsWith("FAILED")));
    }

    private void write(Path file) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), "version-matrix", ".tmp");
            Files.writeString(tmp, render());
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static int compareRows(String a, String b) {
        return Comparator.<String, List<Integer>>comparing(VersionMatrix::numbers, VersionMatrix::compareLists).compare(a, b);
    }

    private static List<Integer> numbers(String key) {
        List<Integer> out = new ArrayList<>();
        for (String part : key.split("[.|]")) {
            out.add(Integer.parseInt(part.replaceAll("\\D", "").isEmpty() ? "0" : part.replaceAll("\\D", "")));
        }
        return out;
    }

    private static int compareLists(List<Integer> a, List<Integer> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Integer.compare(a.get(i), b.get(i));
            if (c != 0) return c;
        }
        return Integer.compare(a.size(), b.size());
    }
}
