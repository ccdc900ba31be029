package io.stallscope.it.examples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Markdown tables whose header row starts with the given cells: rows as column-name maps, with the heading above. */
final class MarkdownTable {
    record Table(String heading, List<Map<String, String>> rows) {
    }

    private MarkdownTable() {
    }

    static List<Table> findAll(String markdown, String headerStart) {
        List<String> lines = markdown.lines().toList();
        List<Table> out = new ArrayList<>();
        String heading = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("#")) {
                heading = line.replaceFirst("^#+\\s*", "");
            }
            if (!line.startsWith(headerStart)) {
                continue;
            }
            List<String> header = cells(line);
            List<Map<String, String>> rows = new ArrayList<>();
            int j = i + 2;
            for (; j < lines.size() && lines.get(j).startsWith("|"); j++) {
                List<String> c = cells(lines.get(j));
                Map<String, String> row = new LinkedHashMap<>();
                for (int k = 0; k < header.size() && k < c.size(); k++) {
                    row.put(header.get(k), c.get(k));
                }
                rows.add(row);
            }
            out.add(new Table(heading, rows));
            i = j - 1;
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no table whose header starts '" + headerStart + "'");
        }
        return out;
    }

    private static List<String> cells(String line) {
        String inner = line.trim();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        List<String> out = new ArrayList<>();
        for (String c : inner.split("\\|")) {
            out.add(c.trim());
        }
        return out;
    }
}
