package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The broker's GC pauses in the measured window, from its unified GC log (-Xlog:gc:file=...:utctime):
 * a stop-the-world pause stalls every produce request, with or without a roll, so it is part of the
 * floor this machine sets.
 */
record RollSpikeGcPauses(int count, double maxMs, double totalMs) {
    /** [2026-11-21T10:12:00.123+0000] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 100M->20M(1024M) 5.123ms */
    private static final Pattern PAUSE = Pattern.compile("^\\[([^\\]]+)\\].*\\bPause\\b.*?([0-9.]+)ms\\s*$");
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");

    static String jvmArg(Path log) {
        return "-Xlog:gc:file=" + log + ":utctime";
    }

    /** Pauses that ended in [fromMillis, toMillis) (epoch ms). */
    static RollSpikeGcPauses in(Path log, long fromMillis, long toMillis) throws IOException {
        int count = 0;
        double max = 0;
        double total = 0;
        if (!Files.exists(log)) {
            return new RollSpikeGcPauses(-1, 0, 0);
        }
        for (String line : Files.readAllLines(log)) {
            Matcher m = PAUSE.matcher(line);
            if (!m.find()) {
                continue;
            }
            long at = OffsetDateTime.parse(m.group(1), UTC).toInstant().toEpochMilli();
            if (at >= fromMillis && at < toMillis) {
                double ms = Double.parseDouble(m.group(2));
                count++;
                max = Math.max(max, ms);
                total += ms;
            }
        }
        return new RollSpikeGcPauses(count, max, total);
    }

    @Override
    public String toString() {
        return count < 0 ? "no log" : String.format("%d / %.1f / %.0f", count, maxMs, totalMs);
    }
}
