package io.stallscope.agent.report.jfr;

import jdk.jfr.AnnotationElement;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Timespan;
import jdk.jfr.ValueDescriptor;

import java.util.ArrayList;
import java.util.List;

/**
 * The fields every op's JFR event carries, in the order {@link OpEvents} sets them. The event is committed
 * when the op ends, so its start time is the op's end and {@link #OP_DURATION} says how far back the op
 * began: the span is [startTime - opDuration, startTime]. (JFR offers no way to set an event's start after
 * the fact, and beginning an event on every call would cost every call an allocation.) Readers find the
 * fields by name in the recording's metadata.
 */
public enum OpEventField {
    OP("op", String.class, "Operation", null),
    OP_DURATION("opDuration", long.class, "Operation Duration", null),
    THREAD_ROLE("threadRole", String.class, "Thread Role", "The thread's role, as the metrics' role label"),
    TOPIC("topic", String.class, "Topic", null),
    PARTITION("partition", int.class, "Partition", "-1 when the path names no partition"),
    BYTES("bytes", long.class, "Bytes", "Bytes moved, -1 when the op has no byte count"),
    PATH("path", String.class, "Path", null),
    FAILED("failed", boolean.class, "Failed",
        "The op ended in an exception, or its wait in a queue ended with its task cancelled"),
    BEHIND_OP("behindOp", String.class, "Behind Op",
        "The other thread's op this one most likely waited behind (same file, log or device, at the same time);"
            + " null when none overlapped"),
    BEHIND_THREAD("behindThread", String.class, "Behind Thread", "The thread that ran behindOp"),
    BEHIND_OVERLAP_MS("behindOverlapMs", long.class, "Behind Overlap (ms)",
        "How long behindOp and this op ran at the same time, in whole milliseconds; 0 when none"),
    SCOPE("scope", String.class, "Scope", "What behindOp shared with this op: file, log or device; null when none");

    private final String fieldName;
    private final Class<?> type;
    private final String label;
    private final String description;

    OpEventField(String fieldName, Class<?> type, String label, String description) {
        this.fieldName = fieldName;
        this.type = type;
        this.label = label;
        this.description = description;
    }

    public String fieldName() {
        return fieldName;
    }

    /** The index to set the field at on an event of {@link OpEvents}. */
    int index() {
        return ordinal();
    }

    ValueDescriptor descriptor() {
        List<AnnotationElement> annotations = new ArrayList<>();
        annotations.add(new AnnotationElement(Label.class, label));
        if (description != null) {
            annotations.add(new AnnotationElement(Description.class, description));
        }
        if (this == OP_DURATION) {
            annotations.add(new AnnotationElement(Timespan.class, Timespan.NANOSECONDS));
        }
        return new ValueDescriptor(type, fieldName, annotations);
    }
}
