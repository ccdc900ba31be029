package io.stallscope.agent.cli;

import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import io.stallscope.agent.runtime.AgentRuntime;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.List;

/**
 * {@code java -jar stallscope-agent.jar attach PID [key=value...] | detach PID}: loads the agent into
 * a running broker through the attach API (or tells it to remove itself) and prints the agent's own
 * answer, read back from the broker's system properties; {@code capture} and {@code check-logs} as their commands say.
 */
public final class AgentCli {
    private static final String USAGE = String.join("\n",
        "usage: java -jar stallscope-agent.jar attach PID [key=value ...]",
        "       java -jar stallscope-agent.jar detach PID",
        io.stallscope.agent.capture.CaptureCommand.USAGE,
        io.stallscope.agent.holes.CheckLogsCommand.USAGE,
        "       java -jar stallscope-agent.jar --version | help",
        "  attach  instrument a running broker now (options as for -javaagent, e.g. prometheus=9405)",
        "  detach  remove the instrumentation again; the broker keeps running",
        "  capture record the broker now for --duration into --out (default ./stallscope-TIME-ondemand.jfr)",
        "  check-logs list the offsets a power cut left missing between segments (exit 3 if any; docs/kafka-power-cut-hole.md)",
        "As a -javaagent: -javaagent:stallscope-agent.jar=key=value,... (options: docs/reference.md)");

    private AgentCli() {
    }

    public static void main(String[] args) {
        System.exit(run(Arrays.asList(args)));
    }

    static int run(List<String> args) {
        if (args.isEmpty()) {
            System.err.println(USAGE);
            return 2;
        }
        String command = args.get(0);
        if (command.equals("help") || args.contains("--help") || args.contains("-h")) {
            System.out.println(USAGE);
            return 0;
        }
        if (command.equals("--version") || command.equals("version")) {
            System.out.println("stallscope-agent " + version());
            return 0;
        }
        if (command.equals("capture")) {
            String jar = agentJar();
            return jar == null ? 2 : io.stallscope.agent.capture.CaptureCommand.run(args.subList(1, args.size()), jar);
        }
        if (command.equals("check-logs")) {
            return io.stallscope.agent.holes.CheckLogsCommand.run(args.subList(1, args.size()), System.out, System.err);
        }
        if (!command.equals("attach") && !command.equals("detach")) {
            System.err.println("stallscope: unknown command '" + command + "'\n" + USAGE);
            return 2;
        }
        if (args.size() < 2 || !args.get(1).matches("\\d+")) {
            System.err.println("stallscope: " + command + " needs the broker's process id\n" + USAGE);
            return 2;
        }
        if (command.equals("detach") && args.size() > 2) {
            System.err.println("stallscope: detach takes no options\n" + USAGE);
            return 2;
        }
        String agentArgs = command.equals("detach") ? "detach" : String.join(",", args.subList(2, args.size()));
        return load(args.get(1), agentArgs);
    }

    private static String agentJar() {
        try {
            return new File(AgentCli.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (URISyntaxException | RuntimeException e) {
            System.err.println("stallscope: cannot locate the agent jar (" + e + ")");
            return null;
        }
    }

    /** The jar's Implementation-Version, or "dev" when run from classes. */
    static String version() {
        Package p = AgentCli.class.getPackage();
        String v = p == null ? null : p.getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static int load(String pid, String agentArgs) {
        String jar = agentJar();
        if (jar == null) {
            return 2;
        }
        String notJvm = AttachTarget.onThisMachine().whyNot(pid);
        if (notJvm != null) {
            System.err.println("stallscope: cannot attach to process " + pid + ": " + notJvm);
            return 1;
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(pid);
        } catch (AttachNotSupportedException | IOException e) {
            System.err.println("stallscope: cannot attach to process " + pid + ": " + e.getMessage()
                + " (run as the broker's user, with a JDK, not a JRE)");
            return 1;
        }
        try {
            vm.loadAgent(jar, agentArgs);
            String status = vm.getSystemProperties().getProperty(AgentRuntime.STATUS_PROPERTY);
            if (status == null) {
                System.out.println("stallscope: loaded into " + pid + ", but the agent stayed inactive there"
                    + " (not a broker: see activate.main)");
                return 1;
            }
            System.out.println("stallscope: " + status);
            return status.startsWith("error") ? 1 : 0;
        } catch (AgentLoadException | IOException | RuntimeException e) {
            System.err.println("stallscope: loading the agent into " + pid + " failed: " + e.getMessage());
            return 1;
        } catch (com.sun.tools.attach.AgentInitializationException e) {
            System.err.println("stallscope: the agent refused to start in " + pid + ": " + e.getMessage());
            return 1;
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // the connection is gone either way
            }
        }
    }
}
