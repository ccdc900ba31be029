package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Finding;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The chain's last link, where a recording shows it: a stalled op whose holder's append waited behind another
 * thread's read of the same file (a {@code write-behind-sendfile} finding on the same thread, overlapping the op)
 * was slow because of that read. Nothing else is claimed: a device queue or a cold read the recording does not
 * show is left out.
 */
final class SlowerBecause {
    private SlowerBecause() {
    }

    static void link(List<Finding> findings) {
        for (int i = 0; i < findings.size(); i++) {
            Finding f = findings.get(i);
            if (!f.kind().equals(Finding.STALLED_OP_UNDER_LOCK) || !(f.details().get("chain") instanceof List<?> links)) continue;
            Object holder = f.details().get("holderThread");
            double from = ((Number) f.details().get("opStartMs")).doubleValue();
            double to = ((Number) f.details().get("opEndMs")).doubleValue();
            for (Finding w : findings) {
                if (!w.kind().equals(Finding.WRITE_BEHIND_SENDFILE) || !w.details().get("writerThread").equals(holder)) continue;
                double at = ((Number) w.details().get("overlapStartMs")).doubleValue();
                if (at < from || at > to) continue;
                StallChain.Link because = new StallChain.Link("slow because", String.format(Locale.ROOT,
                    "its %s of %s waited %.1f ms behind %s's %s of the same file (file system %s)", w.details().get("writerOp"),
                    w.details().get("path"), ((Number) w.details().get("overlapMs")).doubleValue(), w.details().get("readerThread"),
                    w.details().get("readerOp"), w.details().get("fileSystem")),
                    "write: " + w.details().get("writeSource") + ", read: " + w.details().get("readSource"));
                List<Object> chain = new ArrayList<>(links);
                chain.add(because);
                Map<String, Object> details = new LinkedHashMap<>(f.details());
                details.put("chain", chain);
                List<String> evidence = new ArrayList<>(f.evidence());
                int last = 0;
                while (last < evidence.size() && evidence.get(last).startsWith("chain ")) last++;
                evidence.add(last, "chain " + (last + 1) + ", " + because.line());
                findings.set(i, new Finding(f.kind(), f.summary(), f.threads(), evidence, f.weightNanos(), details, f.atNanos(), f.harm()));
                break;
            }
        }
    }
}
