package io.stallscope.agent.holes;

/** Writes a {@link LogHoleEvent}. Only loaded when the JVM has jdk.jfr. */
final class HoleJfr implements HoleReport.HoleJfrSink {
    @Override
    public void hole(Hole hole) {
        LogHoleEvent e = new LogHoleEvent();
        if (!e.isEnabled()) {
            return;
        }
        e.partition = hole.partition();
        e.firstMissing = hole.firstMissing();
        e.lastMissing = hole.lastMissing();
        e.missing = hole.missing();
        e.segment = hole.before().file().toString();
        e.segmentBytes = hole.before().size();
        e.nextSegment = hole.after().file().toString();
        e.nextSegmentBytes = hole.after().size();
        e.commit();
    }
}
