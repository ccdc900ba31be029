package io.stallscope.agent.runtime;

import net.bytebuddy.agent.ByteBuddyAgent;

/**
 * For tests that touch the hook classes (ThreadState, OpSink): puts them on the bootstrap class path first,
 * where the agent puts them. Loaded by the test's class loader first, they would clash with
 * AgentInProcessTest's agent in the same JVM (a loader constraint on OpSink.record).
 */
public final class HooksOnBootstrap {
    private HooksOnBootstrap() {
    }

    public static void ensure() {
        String problem = BootstrapInjector.inject(ByteBuddyAgent.install());
        if (problem != null) {
            throw new IllegalStateException("cannot put the hooks on the bootstrap class path: " + problem);
        }
    }
}
