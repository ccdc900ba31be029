package io.stallscope.analyzer.render;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.Contention;
import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.Holder;
import io.stallscope.analyzer.analysis.KafkaThreads;
import io.stallscope.analyzer.analysis.Wait;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SourceFile;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.model.ThreadInfo;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The machine-readable report. Field names are a contract for automation: {@code threads}, {@code contentions}
 * (lock, waiters, holder {thread, how, confidence, frames, syscall}, totalWaitMs) and {@code findings}
 * (kind, summary, threads, evidence). Times are milliseconds from the start of the earliest recording.
 */
public final class JsonReport {
    public static final int FRAMES = 30;
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {
    }

    public static void write(Analysis a, OutputStream out) throws IOException {
        MAPPER.writeValue(out, build(a));
    }

    public static ObjectNode build(Analysis a) {
        Recording rec = a.recording();
        long origin = rec.startNanos();
        ObjectNode root = MAPPER.createObjectNode();
        root.put("tool", "stallscope-analyzer");
        root.put("formatVersion", 1);
        root.put("start", Instant.ofEpochSecond(0, origin).toString());
        root.put("durationMs", Fmt.ms(rec.endNanos() - origin));

        ArrayNode files = root.putArray("files");
        ArrayNode warnings = root.putArray("warnings");
        for (SourceFile f : rec.files) {
            ObjectNode n = files.addObject();
            n.put("path", f.path);
            n.putPOJO("producers", f.producers);
            n.put("chunks", f.chunks);
            n.put("start", Instant.ofEpochSecond(0, f.startNanos).toString());
            n.put("durationMs", Fmt.ms(f.endNanos - f.startNanos));
            n.put("sampleIntervalMs", Fmt.ms(f.sampleIntervalNanos));
            n.putPOJO("eventCounts", f.eventCounts);
            n.putPOJO("warnings", f.warnings);
            f.warnings.forEach(w -> warnings.add(f.path + ": " + w));
        }

        Map<Integer, long[]> waited = new HashMap<>();
        Map<Integer, long[]> held = new HashMap<>();
        for (Wait w : a.waits()) {
            waited.computeIfAbsent(w.thread, k -> new long[1])[0] += w.duration();
            if (w.holder != null) held.computeIfAbsent(w.holder.thread(), k -> new long[1])[0] += w.duration();
        }
        ArrayNode threads = root.putArray("threads");
        for (ThreadInfo t : rec.threads) {
            if (!a.options().threadMatches(t.name()) && !held.containsKey(t.id())) continue;
            ObjectNode n = threads.addObject();
            n.put("id", t.id());
            n.put("name", t.name());
            n.put("file", t.file());
            n.put("role", KafkaThreads.role(t.name()));
            n.put("javaThreadId", t.javaId());
            n.put("osThreadId", t.osId());
            n.put("samples", rec.samples.lane(t.id()).size());
            n.put("waitMs", Fmt.ms(waited.getOrDefault(t.id(), new long[1])[0]));
            n.put("othersWaitedWhileHeldMs", Fmt.ms(held.getOrDefault(t.id(), new long[1])[0]));
        }

        ArrayNode contentions = root.putArray("contentions");
        for (Contention c : top(a.contentions(), a.options().top())) {
            ObjectNode n = contentions.addObject();
            n.put("lock", c.label);
            n.put("lockType", c.lockType);
            n.put("site", c.site);
            n.put("totalWaitMs", Fmt.ms(c.totalWaitNanos));
            n.put("longestWaitMs", Fmt.ms(c.longestWaitNanos));
            n.put("waitCount", c.waitCount);
            ArrayNode waiters = n.putArray("waiters");
            for (Contention.Share s : c.waiters()) {
                ObjectNode w = waiters.addObject();
                w.put("thread", rec.threadName(s.thread));
                w.put("waitMs", Fmt.ms(s.nanos));
                w.put("waits", s.count);
            }
            Holder h = c.mainHolder();
            if (h == null) {
                n.putNull("holder");
            } else {
                n.set("holder", holder(a, h));
            }
            ArrayNode holders = n.putArray("holders");
            for (Contention.Share s : c.holders()) {
                ObjectNode w = holders.addObject();
                w.put("thread", rec.threadName(s.thread));
                w.put("causedWaitMs", Fmt.ms(s.nanos));
                w.put("waits", s.count);
            }
        }

        ArrayNode findings = root.putArray("findings");
        for (Finding f : top(a.findings(), a.options().top())) {
            ObjectNode n = findings.addObject();
            n.put("kind", f.kind());
            n.put("summary", f.summary());
            n.putPOJO("threads", f.threads());
            n.putPOJO("evidence", f.evidence());
            n.put("weightMs", Fmt.ms(f.weightNanos()));
            // kind-specific facts (write-behind-sendfile: writerThread, readerThread, path, overlapMs, fileSystem...)
            f.details().forEach(n::putPOJO);
        }

        ArrayNode spans = root.putArray("spans");
        for (Span s : spansInView(a)) {
            ObjectNode n = spans.addObject();
            n.put("type", s.type());
            n.put("thread", rec.threadName(s.thread()));
            n.put("op", s.opName());
            n.put("start", Instant.ofEpochSecond(0, s.start()).toString());
            n.put("startMs", Fmt.ms(s.start() - origin));
            n.put("durationMs", Fmt.ms(s.duration()));
            n.put("threadRole", s.threadRole());
            n.put("topic", s.topic());
            n.put("partition", s.partition());
            n.put("bytes", s.bytes());
            n.put("path", s.path());
            n.put("failed", s.failed());
        }
        return root;
    }

    static ObjectNode holder(Analysis a, Holder h) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("thread", a.recording().threadName(h.thread()));
        n.put("how", h.how());
        n.put("confidence", h.confidence());
        n.put("syscall", h.op().storage() ? h.op().syscall : null);
        n.putPOJO("frames", a.frameList(h.stack(), FRAMES));
        return n;
    }

    /** The agent spans within --from/--to, in time order (all of them: automation may want every op). */
    static List<Span> spansInView(Analysis a) {
        return a.recording().spans.stream().filter(s -> s.end() >= a.options().from() && s.start() <= a.options().to())
                .sorted(java.util.Comparator.comparingLong(Span::start).thenComparingInt(Span::thread)).toList();
    }

    static <T> List<T> top(List<T> l, int n) {
        return n > 0 && l.size() > n ? l.subList(0, n) : l;
    }
}
