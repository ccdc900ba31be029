package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The kernel's DAMON daemons as sysfs shows them (/sys/kernel/mm/damon/admin/kdamonds/N), read only: a
 * proactive reclaimer there (a "pageout" scheme) takes back page cache a warm-up has just read, so a
 * benchmark that depends on the page cache says whether one was running. The bench never changes it.
 */
final class Damon {
    private static final Path ROOT = Path.of("/sys/kernel/mm/damon/admin/kdamonds");

    private Damon() {
    }

    /** "DAMON kdamond 0 on (pageout, age >= 12 aggregations of 5 s)", or "no DAMON" where sysfs has none. */
    static String describe() {
        List<String> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(ROOT)) {
            for (Path d : dirs.sorted().toList()) {
                if (!Files.isRegularFile(d.resolve("state"))) {
                    continue;
                }
                Path scheme = d.resolve("contexts/0/schemes/0");
                String detail = Files.isDirectory(scheme)
                    ? " (" + read(scheme.resolve("action")) + ", age >= " + read(scheme.resolve("access_pattern/age/min"))
                        + " aggregations of " + aggregationSeconds(d) + " s)"
                    : "";
                out.add("kdamond " + d.getFileName() + " " + read(d.resolve("state")) + detail);
            }
        } catch (IOException | RuntimeException e) {
            return "no DAMON";
        }
        return out.isEmpty() ? "no DAMON" : "DAMON " + String.join(", ", out);
    }

    private static String aggregationSeconds(Path kdamond) throws IOException {
        String us = read(kdamond.resolve("contexts/0/monitoring_attrs/intervals/aggr_us"));
        return String.format(java.util.Locale.ROOT, "%.3g", Long.parseLong(us) / 1e6);
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p).trim();
    }
}
