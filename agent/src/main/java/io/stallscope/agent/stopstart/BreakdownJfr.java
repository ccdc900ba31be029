package io.stallscope.agent.stopstart;

/** Writes a {@link StopStartEvent} spanning the log manager's stop or start. Only loaded when the JVM has jdk.jfr. */
final class BreakdownJfr implements BreakdownReporter.BreakdownJfrSink {
    @Override
    public void began(Breakdown b) {
        StopStartEvent e = new StopStartEvent();
        if (e.isEnabled()) {
            e.begin();
            b.jfrEvent = e;
        }
    }

    @Override
    public void ended(Breakdown b) {
        Object o = b.jfrEvent;
        if (!(o instanceof StopStartEvent)) {
            return;
        }
        StopStartEvent e = (StopStartEvent) o;
        e.end();
        boolean stop = "stop".equals(b.kind());
        e.kind = b.kind();
        long signal = b.signal();
        e.total = stop && signal != 0 && signal < b.began() ? b.ended() - signal : b.ended() - b.began();
        e.flushing = b.nanos(Phase.FLUSH);
        e.closing = b.nanos(Phase.LOG_CLOSE);
        e.closingSegments = b.nanos(Phase.SEGMENT_CLOSE);
        e.indexTrim = b.nanos(Phase.INDEX_TRIM);
        e.timeIndexLastEntry = b.nanos(Phase.TIME_INDEX_LAST_ENTRY);
        e.fileTruncation = b.nanos(Phase.RECORDS_TRIM);
        e.checkpoints = b.nanos(Phase.CHECKPOINT);
        e.loading = b.nanos(Phase.LOAD_LOG);
        e.recovering = b.nanos(Phase.SEGMENT_RECOVER);
        e.logs = stop ? b.count(Phase.LOG_CLOSE) : b.count(Phase.LOAD_LOG);
        e.segments = stop ? b.count(Phase.SEGMENT_CLOSE) : b.count(Phase.SEGMENT_RECOVER);
        e.indexFilesTrimmed = b.count(Phase.INDEX_TRIM);
        e.bytesFlushed = stop ? b.bytesFlushed() : 0;
        e.previousStop = stop ? null : BreakdownLines.previousStop(b);
        e.perLogDir = BreakdownLines.perDir(b);
        e.slowestLogs = BreakdownLines.slowest(b);
        e.commit();
    }

    /** An instant event at the very end of the broker's shutdown: the whole stop and what followed the log manager. */
    @Override
    public void serverStopped(Breakdown b) {
        StopStartEvent e = new StopStartEvent();
        if (!e.isEnabled()) {
            return;
        }
        e.kind = "stop end";
        e.total = b.wholeStop();
        e.afterLogManager = b.afterLogManager();
        e.commit();
    }
}
