package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.LogDir;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which file system a file of a broker is on, from the agent's {@code stallscope.LogDir} events of that broker's
 * recording: the log dir that is the longest whole-component prefix of the path. The events repeat at every chunk;
 * the last one read for a log dir stands.
 */
final class LogDirFileSystems {
    private final Map<Integer, Map<String, LogDir>> byFile = new HashMap<>();

    LogDirFileSystems(List<LogDir> dirs) {
        for (LogDir d : dirs) {
            byFile.computeIfAbsent(d.file(), k -> new HashMap<>()).put(trim(d.logDir()), d);
        }
    }

    /** The log dir holding {@code path} in file {@code file}'s recording, or null when no event covers it. */
    LogDir of(int file, String path) {
        Map<String, LogDir> dirs = byFile.get(file);
        if (dirs == null || path == null) return null;
        LogDir best = null;
        for (Map.Entry<String, LogDir> e : dirs.entrySet()) {
            String dir = e.getKey();
            boolean covers = dir.equals("/") ? path.startsWith("/")
                    : path.startsWith(dir) && (path.length() == dir.length() || path.charAt(dir.length()) == '/');
            if (covers && (best == null || dir.length() > trim(best.logDir()).length())) best = e.getValue();
        }
        return best;
    }

    private static String trim(String dir) {
        String d = dir;
        while (d.length() > 1 && d.endsWith("/")) d = d.substring(0, d.length() - 1);
        return d;
    }
}
