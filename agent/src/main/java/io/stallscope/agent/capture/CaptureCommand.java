package io.stallscope.agent.capture;

import com.sun.tools.attach.VirtualMachine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * {@code capture PID --duration 30s [--out FILE]}: records the broker now, through the attach API.
 * Loads the agent jar with "capture NANOS PATH" (an active agent is not disturbed: the recording runs
 * beside it), then polls the broker's answer until the file is written.
 */
public final class CaptureCommand {
    public static final String USAGE = "       java -jar stallscope-agent.jar capture PID --duration 30s [--out FILE]";
    private static final long MAX_NANOS = 3_600_000_000_000L;

    private CaptureCommand() {
    }

    /** @param args the words after "capture"; returns the exit status */
    public static int run(List<String> args, String agentJar) {
        if (args.isEmpty() || !args.get(0).matches("\\d+")) {
            return usage("capture needs the broker's process id");
        }
        String pid = args.get(0);
        String duration = null;
        String out = null;
        for (int i = 1; i < args.size(); i++) {
            String a = args.get(i);
            if ((a.equals("--duration") || a.equals("--out")) && i + 1 < args.size()) {
                if (a.equals("--duration")) {
                    duration = args.get(++i);
                } else {
                    out = args.get(++i);
                }
            } else if (a.startsWith("--duration=")) {
                duration = a.substring("--duration=".length());
            } else if (a.startsWith("--out=")) {
                out = a.substring("--out=".length());
            } else {
                return usage("unexpected argument '" + a + "'");
            }
        }
        if (duration == null) {
            return usage("capture needs --duration, e.g. --duration 30s");
        }
        long nanos = parseDuration(duration);
        if (nanos < 1_000_000_000L || nanos > MAX_NANOS) {
            return usage("bad --duration '" + duration + "': expected 1s to 60m, such as 30s or 2m");
        }
        Path target = out != null ? Paths.get(out).toAbsolutePath()
            : Paths.get("").toAbsolutePath().resolve(CaptureNames.of(Instant.now(), "ondemand"));
        if (target.getParent() == null || !Files.isDirectory(target.getParent())) {
            return usage("no directory " + target.getParent() + " for --out");
        }
        if (Files.exists(target)) {
            return usage(target + " exists; choose another --out");
        }
        return record(pid, nanos, target, agentJar);
    }

    private static int record(String pid, long nanos, Path target, String agentJar) {
        String notJvm = io.stallscope.agent.cli.AttachTarget.onThisMachine().whyNot(pid);
        if (notJvm != null) {
            System.err.println("stallscope: cannot attach to process " + pid + ": " + notJvm);
            return 1;
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(pid);
        } catch (Exception e) {
            System.err.println("stallscope: cannot attach to process " + pid + ": " + e.getMessage()
                + " (run as the broker's user, with a JDK, not a JRE)");
            return 1;
        }
        try {
            vm.loadAgent(agentJar, "capture " + nanos + " " + target);
            String status = vm.getSystemProperties().getProperty(OnDemandCapture.STATUS_PROPERTY, "");
            if (!status.startsWith("recording")) {
                System.err.println("stallscope: capture in " + pid + " did not start: " + status);
                return 1;
            }
            System.out.println("stallscope: " + status);
            long deadline = System.nanoTime() + nanos + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                Thread.sleep(500);
                status = vm.getSystemProperties().getProperty(OnDemandCapture.STATUS_PROPERTY, "");
                if (status.startsWith("written")) {
                    System.out.println("stallscope: " + status.replaceFirst(" (\\d+)$", " ($1 bytes)"));
                    return 0;
                }
                if (status.startsWith("error")) {
                    System.err.println("stallscope: " + status);
                    return 1;
                }
            }
            System.err.println("stallscope: the recording in " + pid + " did not finish in time (last: " + status + ")");
            return 1;
        } catch (Exception e) {
            System.err.println("stallscope: capture in " + pid + " failed: " + e.getMessage());
            return 1;
        } finally {
            try {
                vm.detach();
            } catch (Exception ignored) {
                // the connection is gone either way
            }
        }
    }

    /** 30s, 1500ms, 2m; -1 when not a duration. */
    static long parseDuration(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        long unit;
        String num;
        if (s.endsWith("ms")) {
            unit = 1_000_000L;
            num = s.substring(0, s.length() - 2);
        } else if (s.endsWith("s")) {
            unit = 1_000_000_000L;
            num = s.substring(0, s.length() - 1);
        } else if (s.endsWith("m")) {
            unit = 60_000_000_000L;
            num = s.substring(0, s.length() - 1);
        } else {
            return -1;
        }
        if (!num.matches("\\d{1,7}")) {
            return -1;
        }
        return Long.parseLong(num) * unit;
    }

    private static int usage(String message) {
        System.err.println("stallscope: " + message + "\nusage:" + USAGE.substring("usage:".length()));
        return 2;
    }
}
