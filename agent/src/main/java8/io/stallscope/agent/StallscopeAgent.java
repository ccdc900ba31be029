package io.stallscope.agent;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;

/**
 * The agent's entry point: premain, agentmain and the command line. Compiled for Java 8 so that an
 * old broker JVM can load it, say one line and go on; everything else needs Java 11 and is reached
 * by reflection only after the version check.
 */
public final class StallscopeAgent {
    private static final String RUNTIME = "io.stallscope.agent.runtime.AgentRuntime";
    private static final String CLI = "io.stallscope.agent.cli.AgentCli";
    /** The JVM's exit status when strict=true refuses a bad option at start. */
    static final int STRICT_REFUSAL = 2;

    private StallscopeAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, "premain");
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, "attach");
    }

    public static void main(String[] args) {
        if (!supported()) {
            System.err.println("stallscope: needs Java 11 or newer, this is Java "
                + System.getProperty("java.specification.version"));
            System.exit(2);
        }
        try {
            Class.forName(CLI).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (InvocationTargetException e) {
            System.err.println("stallscope: " + e.getCause());
            System.exit(2);
        } catch (ReflectiveOperationException | LinkageError e) {
            System.err.println("stallscope: the agent jar is damaged (" + e + ")");
            System.exit(2);
        }
    }

    private static void start(String args, Instrumentation inst, String how) {
        if (!supported()) {
            System.err.println("[stallscope] WARN needs Java 11 or newer, this JVM is Java "
                + System.getProperty("java.specification.version") + ": the agent is inactive");
            return;
        }
        try {
            Class.forName(RUNTIME).getMethod("start", String.class, Instrumentation.class, String.class)
                .invoke(null, args, inst, how);
        } catch (InvocationTargetException e) {
            // only a refusal under strict=true escapes AgentRuntime, its one line already written. At start
            // it stops the JVM with a plain exit status: thrown out of premain it would become JPLIS's
            // "FATAL ERROR in native method" abort (status 134), which reads like a crash. On attach the
            // running broker must not stop: the exception reaches the attach client as a refusal.
            if (e.getCause() instanceof IllegalArgumentException) {
                if ("premain".equals(how)) {
                    System.exit(STRICT_REFUSAL);
                }
                throw (IllegalArgumentException) e.getCause();
            }
            System.err.println("[stallscope] ERROR the agent failed to start (" + e.getCause()
                + "); the broker runs without it");
        } catch (Throwable t) {
            System.err.println("[stallscope] ERROR the agent failed to start (" + t + "); the broker runs without it");
        }
    }

    private static boolean supported() {
        String v = System.getProperty("java.specification.version", "1.8");
        return !v.startsWith("1.") && !v.equals("9") && !v.equals("10");
    }
}
