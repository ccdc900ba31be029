package io.stallscope.analyzer.render;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stallscope.analyzer.analysis.Analysis;
import io.stallscope.analyzer.analysis.holders.Contention;
import io.stallscope.analyzer.analysis.findings.SafepointReport;
import io.stallscope.analyzer.analysis.holders.SlowSafepoint;
import io.stallscope.analyzer.analysis.view.FindingView;
import io.stallscope.analyzer.analysis.view.ReportView;
import io.stallscope.analyzer.analysis.view.ReportViews;
import io.stallscope.analyzer.analysis.view.StackTree;
import io.stallscope.analyzer.analysis.view.ThreadStates;
import io.stallscope.analyzer.analysis.view.ThreadView;
import io.stallscope.analyzer.analysis.waits.Wait;
import io.stallscope.analyzer.model.IoEvent;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Samples;
import io.stallscope.analyzer.model.Span;
import io.stallscope.analyzer.model.State;
import io.stallscope.analyzer.util.Counts;
import io.stallscope.analyzer.util.Durations;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One self-contained HTML file: the data as JSON in a script element, the timeline's JS and CSS inline, nothing
 * fetched. Recorded strings reach the page only as escaped text (in the HTML) or as JSON read by JS and inserted
 * with textContent; in the JSON, {@code <}, {@code >} and {@code &} are escaped so no thread name can close the
 * script element.
 */
public final class HtmlReport {
    /** Samples and waits embedded at most: a big recording is thinned so the page stays usable. */
    static final int SAMPLE_BUDGET = TimelineSample.SAMPLE_BUDGET;
    static final int WAIT_BUDGET = TimelineSample.WAIT_BUDGET;
    static final int STACK_DEPTH = 48;
    /** Slow safepoints listed above the timeline; all of them are banded on it (up to the wait budget) and in the JSON. */
    static final int SAFEPOINTS_LISTED = 20;
    /** Flame boxes thinner than this share of the whole are left out: under a pixel wide, and they bloat the page. */
    static final double FLAME_MIN_SHARE = 0.002;
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private HtmlReport() {
    }

    public static void write(ReportView v, OutputStream out) throws IOException {
        out.write(render(v).getBytes(StandardCharsets.UTF_8));
    }

    public static String render(Analysis a) throws IOException {
        return render(ReportViews.of(a));
    }

    public static String render(ReportView v) throws IOException {
        Analysis a = v.analysis();
        Recording rec = a.recording();
        StringBuilder h = new StringBuilder(1 << 16);
        h.append("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
                .append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n")
                .append("<title>Stallscope report</title>\n<style>\n").append(resource("report.css")).append("</style></head>\n<body>\n");
        h.append("<header><h1>Stallscope: lock contention and storage stalls</h1><div class=\"meta\">");
        List<String> files = new ArrayList<>();
        rec.files.forEach(f -> files.add(f.path + " (" + String.join("+", f.producers) + ")"));
        h.append(esc(String.join(", ", files))).append(String.format(Locale.ROOT, " &middot; %.1f s", (rec.endNanos() - rec.startNanos()) / 1e9));
        h.append("</div></header>\n<section class=\"findings\"><h2>Findings</h2><ol id=\"findings\">\n");
        for (FindingView f : v.findings()) {
            h.append("<li><span class=\"kind\">").append(esc(f.finding().kind())).append("</span> ").append(esc(f.finding().summary()));
            h.append(momentLink(f)).append("</li>\n");
        }
        if (a.findings().isEmpty()) h.append("<li>No lock contention or storage stall found.</li>\n");
        h.append("</ol></section>\n");
        safepoints(v, h);
        locks(v, h);
        if (v.findings().isEmpty()) states(v, h);
        h.append("<div class=\"controls\"><label>Threads <input type=\"text\" id=\"filter\" placeholder=\"filter by name (regex)\"></label>")
                .append("<button id=\"reset\">Reset zoom</button><span class=\"hint\">wheel: zoom &middot; drag: pan &middot; click: stacks at that moment</span>")
                .append("<span id=\"status\" class=\"hint\"></span></div>\n");
        h.append("<div class=\"legend\" id=\"legend\"><span><span class=\"sw\" style=\"background:#43a047\"></span>runnable</span>")
                .append("<span><span class=\"sw\" style=\"background:#b0bec5\"></span>sleeping/off-CPU</span>")
                .append("<span><span class=\"sw\" style=\"background:#ff6f00\"></span>in a storage syscall</span>")
                .append("<span><span class=\"sw\" style=\"background:rgba(0,137,123,0.5)\"></span>Stallscope agent span</span>")
                .append("<span><span class=\"sw\" style=\"background:rgba(198,40,40,0.3)\"></span>slow safepoint: every thread stopped (outlined: the holder)</span>")
                .append("<span>bars: waits by lock &middot; outlined: the holder meanwhile (dashed link: inferred)</span></div>\n");
        String windowed = TimelineSample.analysisSentence(v.analysis());
        if (windowed != null) h.append("<p class=\"hint\" id=\"analysis-sample\">").append(esc(windowed)).append("</p>\n");
        String sampled = TimelineSample.of(v).sentence();
        if (sampled != null) h.append("<p class=\"hint\" id=\"timeline-sample\">").append(esc(sampled)).append("</p>\n");
        h.append("<div id=\"lanes\"><canvas id=\"timeline\"></canvas></div>\n<section id=\"details\"><p class=\"hint\">Click the timeline to see every thread's stack at that moment.</p></section>\n");
        h.append("<section class=\"flames\"><h2>Where the waiting went</h2>")
                .append("<p class=\"hint\">Stacks merged from the outermost frame down, each box as wide as the lock wait it stands for;")
                .append(" hover a box for its method and time.</p>\n")
                .append("<h3>Waiting threads: where they waited</h3><div class=\"flame\" id=\"flame-waiting\"></div>\n")
                .append("<h3>Holders: what they did meanwhile</h3><div class=\"flame\" id=\"flame-holding\"></div></section>\n");
        h.append("<script type=\"application/json\" id=\"stallscope-data\">").append(scriptSafe(MAPPER.writeValueAsString(data(v))))
                .append("</script>\n<script>\n").append(resource("report.js")).append("</script>\n</body></html>\n");
        return h.toString();
    }

    /** The slow safepoints, worst first, as the text report gives them, each with a link to its moment (static, escaped markup). */
    private static void safepoints(ReportView v, StringBuilder h) {
        SafepointReport r = v.analysis().safepoints();
        if (r.slow().isEmpty()) return;
        long origin = v.recording().startNanos();
        h.append("<section class=\"safepoints\"><h2>Slow safepoints</h2><p class=\"hint\">").append(esc(String.format(Locale.ROOT,
                "%s with a time to safepoint of %s or more: total stop %s, longest %s. [recorded]: an event of the JVM or the agent says so;"
                        + " [inferred]: read from samples.", Counts.of(r.slow().size(), "safepoint"), Durations.text(r.minSyncNanos()),
                Durations.text(r.totalSyncNanos()), Durations.text(r.longestSyncNanos())))).append("</p><ol id=\"safepoints\">\n");
        for (SlowSafepoint s : r.slow().subList(0, Math.min(r.slow().size(), SAFEPOINTS_LISTED))) {
            long at = s.safepoint().syncStart() - origin;
            h.append("<li>").append(esc(String.format(Locale.ROOT, "+%.3f s: ", at / 1e9))).append(esc(s.sentence()))
                    .append(" <a class=\"moment\" href=\"#t=").append(String.format(Locale.ROOT, "%.2f", at / 1e6))
                    .append("\">show on the timeline</a></li>\n");
        }
        h.append("</ol></section>\n");
    }

    /**
     * A link to the finding's moment: it filters the lanes to the finding's threads and selects the moment, as
     * {@code #filter=REGEX&t=MS} does on load.
     */
    static String momentLink(FindingView f) {
        if (!f.hasMoment()) return "";
        StringBuilder filter = new StringBuilder();
        for (String t : f.threads()) filter.append(filter.length() == 0 ? "^(" : "|").append(regexQuote(t));
        String href = (filter.length() == 0 ? "#" : "#filter=" + java.net.URLEncoder.encode(filter + ")$", StandardCharsets.UTF_8)
                .replace("+", "%20") + "&") + "t=" + String.format(Locale.ROOT, "%.2f", f.atNanos() / 1e6);
        return " <a class=\"moment\" href=\"" + esc(href) + "\">show on the timeline</a>";
    }

    /**
     * The contended locks, those lock events show apart from those only samples suggest, each with the source of
     * its waits and the holders explaining at least 10% of them (static, escaped markup).
     */
    private static void locks(ReportView v, StringBuilder h) {
        if (!v.recordedContentions().isEmpty()) {
            h.append("<section class=\"locks\"><h2>Contended locks (from lock events)</h2>");
            lockTable(v, v.recordedContentions(), "locks-recorded", h);
            h.append("</section>\n");
        }
        if (!v.inferredContentions().isEmpty()) {
            h.append("<section class=\"locks inferred\"><h2>Inferred contention (estimates from samples)</h2>");
            h.append("<p class=\"hint\">").append(v.lockEvents() == 0 ? "This recording has no lock events: " : "No lock event shows these: ")
                    .append("the waits below were read from samples at lock sites.</p>");
            lockTable(v, v.inferredContentions(), "locks-inferred", h);
            h.append("</section>\n");
        } else if (v.lockEvents() == 0) {
            h.append("<p class=\"hint\" id=\"no-lock-events\">This recording has no lock events: waits and holders can only be estimated from samples, and none were.</p>\n");
        }
    }

    private static void lockTable(ReportView v, List<Contention> cs, String id, StringBuilder h) {
        Recording rec = v.recording();
        h.append("<table id=\"").append(id).append("\"><thead><tr><th>lock</th><th>waited</th><th>waits</th><th>threads</th>")
                .append("<th>source</th><th>holders (share of the waiting)</th></tr></thead><tbody>\n");
        for (Contention c : cs) {
            List<String> holders = new ArrayList<>();
            for (Contention.HolderShare hs : c.mainHolders()) {
                holders.add(String.format(Locale.ROOT, "%s %.0f%% (%s%s)", rec.threadName(hs.thread), 100 * c.share(hs), hs.source(),
                        hs.inferredCount > 0 ? String.format(Locale.ROOT, ", confidence %.2f", hs.confidence()) : ""));
            }
            String logs = TextReport.logs(c);
            h.append("<tr><td>").append(esc(c.label)).append(logs == null ? "" : "<br><span class=\"log\">" + esc(logs) + "</span>").append("</td><td>").append(esc(Durations.text(c.totalWaitNanos))).append("</td><td>")
                    .append(c.waitCount).append("</td><td>").append(c.waiters().size()).append("</td><td>").append(esc(TextReport.source(c)))
                    .append("</td><td>").append(esc(!holders.isEmpty() ? String.join(", ", holders) : c.holders().isEmpty() ? "unknown" : c.noMainHolder())).append("</td></tr>\n");
        }
        h.append("</tbody></table>");
    }

    /** Threads shown in the state table at most: the busiest, as in the text report. */
    static final int STATE_ROWS = 30;

    /** With nothing found, what the samples say each thread did, the busiest first (static, escaped markup). */
    private static void states(ReportView v, StringBuilder h) {
        List<ThreadStates> states = v.threadStates();
        if (states.isEmpty()) return;
        h.append("<section class=\"states\"><h2>What the threads did</h2><table id=\"states\"><thead><tr><th>thread</th><th>samples</th>");
        for (State st : State.values()) h.append("<th>").append(st.name().toLowerCase(Locale.ROOT)).append("</th>");
        h.append("<th>in storage calls</th></tr></thead><tbody>\n");
        for (ThreadStates s : states.subList(0, Math.min(states.size(), STATE_ROWS))) {
            h.append("<tr data-thread=\"").append(esc(s.thread().name())).append("\"><td title=\"").append(esc(s.thread().name())).append("\">")
                    .append(esc(s.thread().lane())).append("</td><td>").append(s.total()).append("</td>");
            for (State st : State.values()) h.append("<td>").append(s.of(st) == 0 ? "" : Fmt.pct(s.of(st), s.total())).append("</td>");
            h.append("<td>").append(s.storage() == 0 ? "" : Fmt.pct(s.storage(), s.total())).append("</td></tr>\n");
        }
        h.append("</tbody></table>");
        if (states.size() > STATE_ROWS) h.append("<p class=\"hint\">").append(Counts.of(states.size() - STATE_ROWS, "more thread")).append(" on the timeline below.</p>");
        h.append("</section>\n");
    }

    /** A literal for a JavaScript regular expression (which has no \\Q...\\E). */
    private static String regexQuote(String s) {
        return s.replaceAll("[.*+?^${}()|\\[\\]\\\\]", "\\\\$0");
    }

    /** JSON that cannot end the script element it sits in, nor start markup: {@code <>&} and line separators escaped. */
    static String scriptSafe(String json) {
        StringBuilder sb = new StringBuilder(json.length() + 64);
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            switch (c) {
                case '<' -> sb.append("\\u003c");
                case '>' -> sb.append("\\u003e");
                case '&' -> sb.append("\\u0026");
                case '\u2028' -> sb.append("\\u2028");
                case '\u2029' -> sb.append("\\u2029");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    static String esc(String s) {
        if (s == null) return "";
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '&' -> sb.append("&amp;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode data(ReportView v) {
        Analysis a = v.analysis();
        Recording rec = a.recording();
        long origin = rec.startNanos();
        long from = Math.max(origin, a.options().from());
        long to = Math.min(rec.endNanos(), a.options().to());
        ObjectNode d = MAPPER.createObjectNode();
        d.put("durationMs", Durations.ms(Math.max(to, from + 1) - origin));

        // Waits: the longest, if there are too many; locks in the order of the report.
        List<Wait> waits = new ArrayList<>(a.waits());
        if (waits.size() > WAIT_BUDGET) {
            waits.sort(Comparator.comparingLong(Wait::duration).reversed());
            waits = waits.subList(0, WAIT_BUDGET);
        }
        Map<String, Integer> lockIndex = new LinkedHashMap<>();
        ArrayNode locks = d.putArray("locks");
        for (Contention c : a.contentions()) {
            lockIndex.put(c.key, lockIndex.size());
            locks.addObject().put("label", c.label).put("totalWaitMs", Durations.ms(c.totalWaitNanos)).put("source", c.source());
        }

        List<ThreadView> lanes = v.lanes();
        ArrayNode threads = d.putArray("threads");
        ObjectNode threadPos = d.putObject("threadPos");
        boolean manyFiles = rec.files.size() > 1;
        for (ThreadView t : lanes) {
            threadPos.put(String.valueOf(t.id()), threads.size());
            String name = manyFiles ? "[" + (t.file() + 1) + "] " + t.name() : t.name();
            threads.addObject().put("id", t.id()).put("name", name).put("lane", t.lane()).put("file", t.file()).put("role", t.role());
        }
        ArrayNode intervals = d.putArray("intervalMs");
        for (long iv : a.intervals()) intervals.add(iv / 1e6);

        // Samples, thinned evenly if over budget; stacks and frames renumbered to those used.
        int stride = TimelineSample.of(v).sampleStride();
        Map<Integer, Integer> stackIndex = new HashMap<>();
        Map<Integer, Integer> frameIndex = new HashMap<>();
        ArrayNode stacks = d.putArray("stacks");
        ArrayNode frames = d.putArray("frames");
        ArrayNode stackIo = d.putArray("stackIo");
        ObjectNode samples = d.putObject("samples");
        for (ThreadView t : lanes) {
            ArrayNode ts = MAPPER.createArrayNode(), ss = MAPPER.createArrayNode(), st = MAPPER.createArrayNode(), ws = MAPPER.createArrayNode();
            int n = 0;
            for (Samples.Cursor c = rec.samples.lane(t.id()).cursorAt(from); c.next() && c.time() <= to; ) {
                if (n++ % stride != 0) continue;
                int stack = c.stack();
                Integer si = stackIndex.get(stack);
                if (si == null) {
                    si = stacks.size();
                    stackIndex.put(stack, si);
                    ArrayNode fs = stacks.addArray();
                    int[] f = rec.stacks.frames(stack);
                    for (int k = 0; k < f.length && k < STACK_DEPTH; k++) {
                        Integer fi = frameIndex.get(f[k]);
                        if (fi == null) {
                            fi = frames.size();
                            frameIndex.put(f[k], fi);
                            frames.add(rec.frames.label(f[k]));
                        }
                        fs.add(fi);
                    }
                    stackIo.add(v.inStorageCall(stack) ? 1 : 0);
                }
                ts.add(Durations.ms(c.time() - origin));
                ss.add(si);
                st.add(c.state().ordinal());
                ws.add(c.weight() * stride);
            }
            if (ts.isEmpty()) continue;
            ObjectNode s = samples.putObject(String.valueOf(t.id()));
            s.set("t", ts);
            s.set("s", ss);
            s.set("st", st);
            s.set("w", ws);
        }

        ArrayNode wa = d.putArray("waits");
        waits.sort(Comparator.comparingLong(w -> w.start));
        for (Wait w : waits) {
            ObjectNode n = wa.addObject();
            n.put("th", w.thread).put("s", Durations.ms(w.start - origin)).put("e", Durations.ms(w.end - origin)).put("lock", lockIndex.get(w.lockKey));
            n.put("h", w.holder == null ? -1 : w.holder.thread());
            n.put("how", w.holder == null ? "" : w.holder.how());
            n.put("c", w.holder == null ? 0 : w.holder.confidence());
            n.put("src", w.source()).put("n", w.samples);
        }
        // Agent spans: all of them, or the longest WAIT_BUDGET in a huge recording.
        List<Span> inView = new ArrayList<>();
        for (Span s : rec.spans) {
            if (s.end() >= from && s.start() <= to) inView.add(s);
        }
        if (inView.size() > WAIT_BUDGET) {
            inView.sort(Comparator.comparingLong(Span::duration).reversed());
            inView = inView.subList(0, WAIT_BUDGET);
        }
        inView.sort(Comparator.comparingLong(Span::start));
        ArrayNode spans = d.putArray("spans");
        for (Span s : inView) {
            ObjectNode n = spans.addObject().put("th", s.thread()).put("s", Durations.ms(s.start() - origin)).put("e", Durations.ms(s.end() - origin))
                    .put("op", s.opName()).put("type", s.type()).put("tp", s.topicPartition() == null ? "" : s.topicPartition())
                    .put("bytes", s.bytes()).put("failed", s.failed());
            n.put("label", s.opName() + " " + Durations.text(s.duration()) + (s.topicPartition() == null ? "" : " " + s.topicPartition()));
        }
        ArrayNode io = d.putArray("io");
        for (int i = 0; i < rec.io.size() && io.size() <= WAIT_BUDGET; i++) {
            if (rec.io.end(i) < from || rec.io.start(i) > to) continue;
            IoEvent e = rec.io.get(i);
            io.addObject().put("th", e.thread()).put("s", Durations.ms(e.start() - origin)).put("e", Durations.ms(e.end() - origin)).put("type", e.type());
        }
        // Slow safepoints: the sync, and the holder's lane when a thread of the JVM is named (-1: none, or not a lane).
        ArrayNode sps = d.putArray("safepoints");
        for (SlowSafepoint s : v.analysis().safepoints().slow().subList(0, Math.min(v.analysis().safepoints().slow().size(), WAIT_BUDGET))) {
            ObjectNode n = sps.addObject().put("file", s.safepoint().file()).put("s", Durations.ms(s.safepoint().syncStart() - origin))
                    .put("e", Durations.ms(s.safepoint().syncEnd() - origin)).put("label", s.sentence());
            n.put("h", s.holderThread());
            n.put("how", s.holder() == null ? "" : s.holder().source().label());
        }
        ObjectNode flames = d.putObject("flames");
        flames.set("waiting", flame(v.waitingStacks()));
        flames.set("holding", flame(v.holdingStacks()));
        return d;
    }

    /** {n: name, ms, c: [children]}, without boxes under {@link #FLAME_MIN_SHARE} of the whole. */
    static ObjectNode flame(StackTree root) {
        return flameNode(root, Math.max(1, (long) (root.nanos() * FLAME_MIN_SHARE)), 0);
    }

    private static ObjectNode flameNode(StackTree t, long minNanos, int depth) {
        ObjectNode n = MAPPER.createObjectNode().put("n", t.name()).put("ms", Durations.ms(t.nanos()));
        if (depth < 2 * STACK_DEPTH) {
            ArrayNode c = n.putArray("c");
            for (StackTree k : t.children(minNanos)) c.add(flameNode(k, minNanos, depth + 1));
        }
        return n;
    }

}
