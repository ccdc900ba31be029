package io.stallscope.agent.holes;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code stallscope-agent check-logs DIR... [--compacted TOPIC,...]}: lists the power-cut holes in Kafka log dirs.
 * Exit status 3 when it finds a hole, 0 when none, 1 when a dir cannot be read, 2 on a usage error.
 */
public final class CheckLogsCommand {
    public static final String USAGE =
        "       java -jar stallscope-agent.jar check-logs LOG_DIR... [--compacted TOPIC[,TOPIC...]]";
    public static final int HOLE = 3;

    private CheckLogsCommand() {
    }

    public static int run(List<String> args, PrintStream out, PrintStream err) {
        List<Path> dirs = new ArrayList<>();
        Set<String> compacted = new TreeSet<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--compacted")) {
                if (i + 1 == args.size() || args.get(i + 1).isEmpty()) {
                    err.println("stallscope: --compacted needs a topic name (or several, comma-separated)");
                    return 2;
                }
                compacted.addAll(Arrays.asList(args.get(++i).split(",")));
            } else if (a.startsWith("--compacted=")) {
                compacted.addAll(Arrays.asList(a.substring("--compacted=".length()).split(",")));
            } else if (a.startsWith("-")) {
                err.println("stallscope: check-logs: unknown option '" + a + "'");
                return 2;
            } else {
                try {
                    dirs.add(Paths.get(a));
                } catch (InvalidPathException e) {
                    err.println("stallscope: check-logs: not a path: " + a);
                    return 2;
                }
            }
        }
        if (dirs.isEmpty()) {
            err.println("stallscope: check-logs needs at least one log dir\n" + USAGE.trim());
            return 2;
        }
        LogDirCheck check = new LogDirCheck(compacted);
        boolean unreadable = false;
        for (Path dir : dirs) {
            try {
                check.check(dir);
            } catch (IOException | RuntimeException e) {
                err.println("stallscope: check-logs: cannot read " + dir + ": " + message(e));
                unreadable = true;
            }
        }
        for (Hole h : check.holes()) {
            out.println(h.describe());
        }
        for (String n : check.notes()) {
            out.println("note: " + n);
        }
        out.println(check.holes().size() + " hole(s) in " + check.logs() + " log(s). Compacted topics are known from"
            + " each log dir's cleaner-offset-checkpoint and --compacted: a compacted topic never cleaned on this broker"
            + " shows as a hole unless --compacted names it.");
        return !check.holes().isEmpty() ? HOLE : unreadable ? 1 : 0;
    }

    private static String message(Exception e) {
        String m = e.getMessage();
        return m == null ? e.getClass().getSimpleName() : e instanceof java.nio.file.AccessDeniedException
            ? "permission denied (" + m + ")" : m;
    }
}
