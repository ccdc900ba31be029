package io.stallscope.it.examples;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The first Markdown table whose header row starts with the given cells: rows as column-name maps. */
final class MarkdownTable {
    private MarkdownTable() {
    }

    static List<Map<String, String>> find(String markdown, String headerStart) {
        List<String> lines = markdown.lines().toList();
        int i = 0;
        while (i < lines.size() && !(lines.get(i).startsWith(headerStart) && lines.get(i).startsWith("|"))) {
            i++;
        }
        if (i >= lines.size()) {
            throw new IllegalArgumentException("no table whose header starts '" + headerStart + "'");
        }
        List<String> header = cells(lines.get(i));
        List<Map<String, String>> rows = new ArrayList<>();
        for (int j = i + 2; j < lines.size() && lines.get(j).startsWith("|"); j++) {
            List<String> c = cells(lines.get(j));
            Map<String, String> row = new LinkedHashMap<>();
            for (int k = 0; k < header.size() && k < c.size(); k++) {
                row.put(header.get(k), c.get(k));
            }
            rows.add(row);
        }
        return rows;
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
