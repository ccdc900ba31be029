package io.stallscope.analyzer.render;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.findings.SafepointReport;
import io.stallscope.analyzer.analysis.holders.SlowSafepoint;
import io.stallscope.analyzer.analysis.view.FindingView;
import io.stallscope.analyzer.analysis.view.ReportView;
import io.stallscope.analyzer.analysis.view.ReportViews;
import io.stallscope.analyzer.analysis.view.ThreadView;
import io.stallscope.analyzer.analysis.waits.Holder;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Safepoint;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.util.Durations;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.List;

/**
 * The machine-readable report. Field names are a contract for automation: {@code threads}, {@code contentions}
 * (lock, waiters, holder {thread, how, confidence, frames, syscall}, totalWaitMs) and {@code findings}
 * (kind, summary, threads, evidence, atMs). Times are milliseconds from the start of the earliest recording.
 */
public final class JsonReport {
    public static final int FRAMES = 30;
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {
    }

    public static void write(ReportView v, OutputStream out) throws IOException {
        MAPPER.writeValue(out, build(v));
    }

    public static ObjectNode build(Analysis a) {
        return build(ReportViews.of(a));
    }

    public static ObjectNode build(ReportView v) {
        Analysis a = v.analysis();
        Recording rec = a.recording();
        long origin = rec.startNanos();
        ObjectNode root = MAPPER.createObjectNode();
        root.put("tool", "stallscope-analyzer");
        root.put("formatVersion", 1);
        root.put("start", Instant.ofEpochSecond(0, origin).toString());
        root.put("durationMs", Durations.ms(rec.endNanos() - origin));
        // 0: every wait and holder below is inferred from samples
        root.put("lockEvents", v.lockEvents());

        ArrayNode files = root.putArray("files");
        ArrayNode warnings = root.putArray("warnings");
        for (SourceFile f : rec.files) {
            ObjectNode n = files.addObject();
            n.put("path", f.path);
            n.putPOJO("producers", f.producers);
            n.put("chunks", f.chunks);
            n.put("start", Instant.ofEpochSecond(0, f.startNanos).toString());
            n.put("durationMs", Durations.ms(f.endNanos - f.startNanos));
            n.put("sampleIntervalMs", Durations.ms(f.sampleIntervalNanos));
            n.putPOJO("eventCounts", f.eventCounts);
            n.putPOJO("warnings", f.warnings);
            f.warnings.forEach(w -> warnings.add(f.path + ": " + w));
        }

        Analysis.Sampling sampling = a.sampling();
        if (sampling.sampled()) {
            root.putObject("analysisSampled").put("windows", sampling.windows()).put("samples", sampling.samples())
                    .put("lockEvents", sampling.lockEvents()).put("waits", sampling.waits()).put("waitsKept", a.waits().size())
                    .put("sampleStride", sampling.sampleStride()).put("ioEvents", sampling.ioEvents())
                    .put("ioEventsKept", a.recording().io.size()).put("sentence", TimelineSample.analysisSentence(a));
        }
        TimelineSample ts = TimelineSample.of(v);
        root.putObject("htmlTimeline").put("sampled", ts.sampled()).put("waits", ts.waits()).put("waitsShown", ts.waitsShown())
                .put("samples", ts.samples()).put("sampleStride", ts.sampleStride()).put("spans", ts.spans())
                .put("spansShown", ts.spansShown()).put("ioEvents", ts.io()).put("ioEventsShown", ts.ioShown());
        ArrayNode threads = root.putArray("threads");
        for (ThreadView t : v.threads()) {
            ObjectNode n = threads.addObject();
            n.put("id", t.id());
            n.put("name", t.name());
            n.put("file", t.file());
            n.put("role", t.role());
            n.put("javaThreadId", t.javaId());
            n.put("osThreadId", t.osId());
            n.put("samples", t.samples());
            n.put("waitMs", Durations.ms(t.waitNanos()));
            n.put("othersWaitedWhileHeldMs", Durations.ms(t.heldNanos()));
        }

        ArrayNode contentions = root.putArray("contentions");
        for (Contention c : v.contentions()) {
            ObjectNode n = contentions.addObject();
            n.put("lock", c.label);
            n.put("lockType", c.lockType);
            // the Kafka logs whose agent ops the holders were in during the waits, with the waits each explains
            ArrayNode logs = n.putArray("logs");
            for (var l : c.logs) logs.addObject().put("log", l.log()).put("waits", l.waits()).put("waitMs", Durations.ms(l.nanos()));
            n.put("site", c.site);
            n.put("totalWaitMs", Durations.ms(c.totalWaitNanos));
            n.put("longestWaitMs", Durations.ms(c.longestWaitNanos));
            n.put("waitCount", c.waitCount);
            // where the waits came from: "recorded" (lock events), "inferred" (samples), "recorded+inferred"
            n.put("source", c.source());
            n.put("recordedWaits", c.recordedWaits);
            n.put("inferredWaits", c.inferredWaits);
            n.put("inferredSamples", c.inferredSamples);
            n.put("impact", Math.round(c.impact() / 1e6) / 1.0);
            ArrayNode waiters = n.putArray("waiters");
            for (Contention.Share s : c.waiters()) {
                ObjectNode w = waiters.addObject();
                w.put("thread", rec.threadName(s.thread));
                w.put("waitMs", Durations.ms(s.nanos));
                w.put("waits", s.count);
            }
            Holder h = c.mainHolder();
            if (h == null) {
                n.putNull("holder");
            } else {
                n.set("holder", holder(a, h));
            }
            ArrayNode holders = n.putArray("holders");
            for (Contention.HolderShare s : c.holders()) {
                ObjectNode w = holders.addObject();
                w.put("thread", rec.threadName(s.thread));
                w.put("causedWaitMs", Durations.ms(s.nanos));
                w.put("waits", s.count);
                w.put("share", Math.round(c.share(s) * 1000) / 1000.0);
                w.put("source", s.source());
                w.put("recordedWaits", s.recordedCount);
                w.put("inferredWaits", s.inferredCount);
                if (s.inferredCount > 0) w.put("confidence", s.confidence());
                else w.putNull("confidence");
            }
        }

        ArrayNode findings = root.putArray("findings");
        for (FindingView fv : v.findings()) {
            Finding f = fv.finding();
            ObjectNode n = findings.addObject();
            n.put("kind", f.kind());
            n.put("summary", f.summary());
            n.putPOJO("threads", f.threads());
            n.putPOJO("evidence", f.evidence());
            n.put("weightMs", Durations.ms(f.weightNanos()));
            n.put("impact", Math.round(f.impact() / 1e6) / 1.0);
            // what it cost the clients: request-path threads stalled, and how many at once (ranks the findings)
            ObjectNode harm = n.putObject("harm");
            harm.put("stalledMs", Durations.ms(f.harm().stalledNanos()));
            harm.put("threads", f.harm().threads());
            harm.put("peak", f.harm().peak());
            harm.put("score", Math.round(f.harm().score() / 1e6) / 1.0);
            harm.putPOJO("sources", f.harm().sourceNames());
            // where the timeline shows it (the op's start, the longest wait, the first stall), null when it has no one moment
            if (fv.hasMoment()) n.put("atMs", Durations.ms(fv.atNanos()));
            else n.putNull("atMs");
            // kind-specific facts (write-behind-sendfile: writerThread, readerThread, path, overlapMs, fileSystem...)
            f.details().forEach(n::putPOJO);
        }

        root.set("safepoints", safepoints(a, origin));

        ArrayNode spans = root.putArray("spans");
        for (Span s : a.spansInView()) {
            ObjectNode n = spans.addObject();
            n.put("type", s.type());
            n.put("thread", rec.threadName(s.thread()));
            n.put("op", s.opName());
            n.put("start", Instant.ofEpochSecond(0, s.start()).toString());
            n.put("startMs", Durations.ms(s.start() - origin));
            n.put("durationMs", Durations.ms(s.duration()));
            n.put("threadRole", s.threadRole());
            n.put("topic", s.topic());
            n.put("partition", s.partition());
            n.put("bytes", s.bytes());
            n.put("path", s.path());
            n.put("failed", s.failed());
            // the agent's "blocked behind" fields, when it wrote them (null otherwise)
            Span.Behind b = s.behind();
            n.put("behindOp", b == null ? null : b.op());
            n.put("behindThread", b == null ? null : b.thread());
            if (b == null) n.putNull("behindOverlapMs");
            else n.put("behindOverlapMs", b.overlapMs());
            n.put("scope", b == null ? null : b.scope());
        }
        return root;
    }

    /**
     * The slow safepoints, worst first: {@code recorded} safepoints in the recording (0: no safepoint events),
     * {@code slowCount}, {@code totalSyncMs}, {@code longestSyncMs}, and each with its links (stop, holder, doing),
     * every link with its {@code source} ("recorded" or "inferred") and {@code basis}; holder and doing null when unknown.
     */
    static ObjectNode safepoints(Analysis a, long origin) {
        SafepointReport r = a.safepoints();
        ObjectNode n = MAPPER.createObjectNode();
        n.put("minSyncMs", Durations.ms(r.minSyncNanos()));
        n.put("recorded", r.recorded());
        n.put("slowCount", r.slow().size());
        n.put("totalSyncMs", Durations.ms(r.totalSyncNanos()));
        n.put("longestSyncMs", Durations.ms(r.longestSyncNanos()));
        ArrayNode slow = n.putArray("slow");
        for (SlowSafepoint s : r.slow()) {
            Safepoint p = s.safepoint();
            ObjectNode o = slow.addObject();
            o.put("summary", s.sentence());
            o.put("safepointId", p.id());
            o.put("file", p.file());
            o.put("operation", p.operation());
            o.put("start", Instant.ofEpochSecond(0, p.syncStart()).toString());
            o.put("startMs", Durations.ms(p.syncStart() - origin));
            o.put("syncMs", Durations.ms(p.syncNanos()));
            // the whole pause, sync and operation, when jdk.SafepointEnd says when it ended
            if (p.end() > 0) o.put("pauseMs", Durations.ms(p.end() - p.syncStart()));
            else o.putNull("pauseMs");
            o.put("threads", p.threads());
            o.put("runningAtStart", p.runningAtStart());
            o.set("stop", link(s.stop()));
            o.set("holder", link(s.holder()));
            o.set("doing", link(s.doing()));
            o.put("holderThread", s.holder() == null ? null : s.holder().text());
            // with no holder, why none is named
            o.put("unknown", s.unknown());
        }
        return n;
    }

    private static com.fasterxml.jackson.databind.JsonNode link(SlowSafepoint.Link l) {
        if (l == null) return com.fasterxml.jackson.databind.node.NullNode.getInstance();
        return MAPPER.createObjectNode().put("text", l.text()).put("source", l.source().label()).put("basis", l.basis());
    }

    static ObjectNode holder(Analysis a, Holder h) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("thread", a.recording().threadName(h.thread()));
        n.put("how", h.how());
        n.put("source", h.how());
        n.put("confidence", h.confidence());
        n.put("syscall", h.op().storage() ? h.op().syscall : null);
        n.putPOJO("frames", a.frameList(h.stack(), FRAMES));
        return n;
    }
}
