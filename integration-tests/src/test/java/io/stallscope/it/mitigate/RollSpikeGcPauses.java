package io.stallscope.it.mitigate;

import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One JVM's stops in the measured window, from its unified log (gc, gc+phases, safepoint; utctime): the
 * collector's pause lines (G1 "Pause Young ...", ZGC "Pause Mark Start ..." which only gc+phases logs),
 * every safepoint whatever its cause (its Total includes reaching the safepoint, which the GC line
 * leaves out), and ZGC's allocation stalls (one thread waits for memory). A stop of the broker stalls
 * every produce request, a stop of the test JVM the producer's clock, with or without a roll: both are
 * part of the floor this machine sets.
 */
record RollSpikeGcPauses(String collector, int count, double maxMs, double totalMs, int safepoints,
                         double maxSafepointMs, double totalSafepointMs, int stalls, double maxStallMs,
                         List<Stop> stops) {
    /** A stretch (epoch ms, end as logged) in which the JVM, or with an allocation stall one of its threads, stood still. */
    record Stop(double startMillis, double endMillis) {
        boolean overlaps(double from, double to) {
            return startMillis < to && endMillis > from;
        }
    }

    static final String TAGS = "gc,gc+phases,safepoint";
    private static final Pattern STAMP = Pattern.compile("^\\[([^\\]]+)\\]\\s*(.*)$");
    /** GC(3) Pause Young (Normal) (G1 Evacuation Pause) 100M->20M(1024M) 5.123ms; GC(0) Pause Mark Start 0.013ms */
    private static final Pattern PAUSE = Pattern.compile("\\bPause\\b.*?([0-9.]+)ms\\s*$");
    /** Safepoint "G1CollectForAllocation", Time since last: ..., Total: 12654128 ns */
    private static final Pattern SAFEPOINT = Pattern.compile("^Safepoint \".*Total: ([0-9]+) ns");
    /** Allocation Stall (data-plane-kafka-request-handler-0) 4.287ms */
    private static final Pattern STALL = Pattern.compile("^Allocation Stall .*?([0-9.]+)ms\\s*$");
    private static final Pattern USING = Pattern.compile("^Using (.*)$");
    private static final DateTimeFormatter UTC = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");

    /** The argument that makes a JVM write this log. */
    static String jvmArg(Path log) {
        return "-Xlog:" + TAGS + ":file=" + log + ":utctime";
    }

    /** Starts the same log for this (the test) JVM at run time (what jcmd VM.log does), no command-line flag needed. */
    static void logThisJvmTo(Path log) throws Exception {
        ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
            "vmLog", new Object[] {new String[] {"output=file=" + log, "what=" + TAGS, "decorators=utctime"}},
            new String[] {String[].class.getName()});
    }

    /** This JVM's collector, by its MXBeans' names ("G1 Young Generation, G1 Old Generation"). */
    static String thisJvmCollector() {
        return String.join(", ", ManagementFactory.getGarbageCollectorMXBeans().stream().map(b -> b.getName()).toList());
    }

    /** Stops that ended in [fromMillis, toMillis) (epoch ms). */
    static RollSpikeGcPauses in(Path log, long fromMillis, long toMillis) throws IOException {
        if (!Files.exists(log)) {
            return new RollSpikeGcPauses("no log", -1, 0, 0, -1, 0, 0, -1, 0, List.of());
        }
        String collector = "?";
        int count = 0;
        double max = 0;
        double total = 0;
        int safepoints = 0;
        double maxSafepoint = 0;
        double totalSafepoint = 0;
        int stalls = 0;
        double maxStall = 0;
        List<Stop> stops = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            Matcher l = STAMP.matcher(line);
            if (!l.find()) {
                continue;
            }
            String text = l.group(2).replaceFirst("^GC\\(\\d+\\)\\s*", "");
            Matcher using = USING.matcher(text);
            if (using.find()) {
                collector = using.group(1);
                continue;
            }
            long at = OffsetDateTime.parse(l.group(1), UTC).toInstant().toEpochMilli();
            if (at < fromMillis || at >= toMillis) {
                continue;
            }
            Matcher sp = SAFEPOINT.matcher(text);
            Matcher stall = STALL.matcher(text);
            Matcher pause = PAUSE.matcher(text);
            if (sp.find()) {
                double ms = Long.parseLong(sp.group(1)) / 1e6;
                safepoints++;
                maxSafepoint = Math.max(maxSafepoint, ms);
                totalSafepoint += ms;
                stops.add(new Stop(at - ms, at));
            } else if (stall.find()) {
                double ms = Double.parseDouble(stall.group(1));
                stalls++;
                maxStall = Math.max(maxStall, ms);
                stops.add(new Stop(at - ms, at));
            } else if (pause.find()) {
                double ms = Double.parseDouble(pause.group(1));
                count++;
                max = Math.max(max, ms);
                total += ms;
            }
        }
        return new RollSpikeGcPauses(collector, count, max, total, safepoints, maxSafepoint, totalSafepoint, stalls,
            maxStall, List.copyOf(stops));
    }

    /** How many ms of [from, to) (epoch ms) this JVM stood still, with 1 ms of slack for the log's ms stamps. */
    double stoppedMs(double from, double to) {
        double ms = 0;
        for (Stop s : stops) {
            if (s.overlaps(from - 1, to + 1)) {
                ms += Math.min(s.endMillis(), to + 1) - Math.max(s.startMillis(), from - 1);
            }
        }
        return Math.max(0, ms);
    }

    /** "GC pauses n / max / total ms; safepoints n / max / total ms (; allocation stalls n / max ms)". */
    @Override
    public String toString() {
        if (count < 0) {
            return "no log";
        }
        return String.format("%d / %.1f / %.0f; %d / %.1f / %.0f", count, maxMs, totalMs, safepoints, maxSafepointMs,
            totalSafepointMs) + (stalls > 0 ? String.format("; stalls %d / %.1f", stalls, maxStallMs) : "");
    }
}
