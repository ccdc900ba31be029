package io.stallscope.analyzer.read;

import io.stallscope.analyzer.model.Safepoint;

/**
 * Where the fields of a safepoint event type are (-1: the type lacks it), names as the JDK 17+ metadata and the
 * agent's {@code SafepointSyncEvent} spell them (checked with {@code jfr metadata} on a JDK 17 recording).
 */
final class SafepointFields {
    enum Kind { BEGIN, SYNC, END, OPERATION, AGENT, OTHER }

    final Kind kind;
    final int id;
    /** jdk.SafepointBegin. */
    final int totalThreads;
    /** jdk.SafepointStateSynchronization: threads still running Java code when the sync began. */
    final int initialRunning;
    /** jdk.ExecuteVMOperation (and the agent's event): the VM operation; whether it ran at a safepoint. */
    final int operation;
    final int atSafepoint;
    /** The agent's stallscope.SafepointSync. */
    final int syncStart;
    final int syncTime;
    final int runningAtStart;
    final int threads;
    final int behindPath;

    SafepointFields(JfrType t) {
        kind = switch (t.name) {
            case "jdk.SafepointBegin" -> Kind.BEGIN;
            case "jdk.SafepointStateSynchronization" -> Kind.SYNC;
            case "jdk.SafepointEnd" -> Kind.END;
            case "jdk.ExecuteVMOperation" -> Kind.OPERATION;
            case Safepoint.AGENT_EVENT -> Kind.AGENT;
            default -> Kind.OTHER;
        };
        id = t.field("safepointId");
        totalThreads = t.field("totalThreadCount");
        initialRunning = t.field("initialThreadCount");
        operation = t.field("operation");
        atSafepoint = t.field("safepoint");
        syncStart = t.field("syncStart");
        syncTime = t.field("syncTime");
        runningAtStart = t.field("runningAtStart");
        threads = t.field("threads");
        behindPath = t.field("behindPath");
    }
}
