package io.stallscope.analyzer.analysis.view;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Thread names cut to fit a timeline's name column, keeping them apart. A Kafka network thread's name is 70
 * characters ({@code data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0}) and differs from
 * its neighbours only at the end, so a long name keeps its head and its tail with an ellipsis between; names that
 * still look alike keep more of the tail, then the part where they differ.
 */
public final class LaneLabels {
    static final String ELLIPSIS = "\u2026";

    private LaneLabels() {
    }

    /** A label of at most {@code max} characters for each name, in order; distinct when the names are. */
    public static List<String> of(List<String> names, int max) {
        List<String> labels = new ArrayList<>();
        for (String n : names) labels.add(cut(n, max, (max - 1) / 2));
        for (int head = (max - 1) / 2 - 4; head >= 0 && collide(names, labels) != null; head -= 4) {
            Map<String, List<Integer>> same = collide(names, labels);
            for (List<Integer> group : same.values()) {
                for (int i : group) labels.set(i, cut(names.get(i), max, Math.max(0, head)));
            }
        }
        Map<String, List<Integer>> same = collide(names, labels);
        if (same != null) {
            for (List<Integer> group : same.values()) {
                int diff = firstDifference(group.stream().map(names::get).toList());
                for (int i : group) labels.set(i, around(names.get(i), max, diff));
            }
        }
        return labels;
    }

    /** The first {@code head} characters, an ellipsis, and the tail that fills {@code max}. */
    static String cut(String name, int max, int head) {
        if (name.length() <= max) return name;
        int tail = max - head - 1;
        return name.substring(0, head) + ELLIPSIS + name.substring(name.length() - tail);
    }

    /** A window of the name around position {@code at}, with ellipses where it was cut. */
    private static String around(String name, int max, int at) {
        if (name.length() <= max) return name;
        int from = Math.max(0, Math.min(at - max / 2, name.length() - (max - 2)));
        int to = Math.min(name.length(), from + max - 2);
        return (from > 0 ? ELLIPSIS : "") + name.substring(from, to) + (to < name.length() ? ELLIPSIS : "");
    }

    private static int firstDifference(List<String> names) {
        String a = names.get(0);
        int d = a.length();
        for (String b : names) {
            int i = 0;
            while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) i++;
            if (!b.equals(a)) d = Math.min(d, i);
        }
        return d;
    }

    /** Indexes of distinct names that got the same label, by label; null when there are none. */
    private static Map<String, List<Integer>> collide(List<String> names, List<String> labels) {
        Map<String, List<Integer>> byLabel = new HashMap<>();
        for (int i = 0; i < labels.size(); i++) byLabel.computeIfAbsent(labels.get(i), k -> new ArrayList<>()).add(i);
        Map<String, List<Integer>> same = new HashMap<>();
        byLabel.forEach((label, idx) -> {
            if (idx.stream().map(names::get).distinct().count() > 1) same.put(label, idx);
        });
        return same.isEmpty() ? null : same;
    }
}
