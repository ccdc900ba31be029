package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.model.IoEvents;

/**
 * One thread's recorded file and socket operations in order of start, for "which of them overlaps this window".
 * A walk from the thread's first event made that cost the events before the window, for every wait: a minute of
 * 48 handlers writing under one lock (660k events, 190k waits) spent seconds there. With the latest end so far
 * kept beside each event, the first one reaching into the window is found by binary search. The events stay in the
 * recording's columns ({@link IoEvents}); this keeps their numbers and latest ends.
 */
final class ThreadIo {
    private final IoEvents io;
    /** The thread's events' numbers in {@link IoEvents}, by start. */
    private final int[] events;
    /** The latest end among events 0..i: never decreasing, unlike the ends themselves (events may nest). */
    private final long[] reach;

    /**
     * @param byStart the numbers in {@code io} of the thread's events, sorted by start. Their ends are read from the
     *                column in one pass (a call and a bounds check per event made the holders' index the biggest part
     *                of a window's analysis on the main thread) and become the latest ends. The starts are not kept:
     *                8 bytes an event, for one lookup per query.
     */
    ThreadIo(IoEvents io, int[] byStart) {
        this.io = io;
        events = byStart;
        reach = io.ends(byStart);
        long latest = Long.MIN_VALUE;
        for (int i = 0; i < reach.length; i++) {
            latest = Math.max(latest, reach[i]);
            reach[i] = latest;
        }
    }

    /**
     * The number in {@link IoEvents} of the first event, in order of start, that overlaps [from, to] (ends at or
     * after {@code from}, starts at or before {@code to}); -1 when none. The first ending at or after {@code from} is
     * where the latest end so far first reaches it; all before it end earlier, so it is the answer unless it starts
     * after {@code to}, and then every later one does too.
     */
    int firstOverlapping(long from, long to) {
        int lo = 0;
        int hi = events.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (reach[mid] >= from) hi = mid;
            else lo = mid + 1;
        }
        return lo < events.length && io.start(events[lo]) <= to ? events[lo] : -1;
    }
}
