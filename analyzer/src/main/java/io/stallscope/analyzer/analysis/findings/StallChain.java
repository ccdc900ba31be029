package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.model.Span;

import java.util.ArrayList;
import java.util.List;

/**
 * One stall told from the victims to the root: who waited, who held what they waited for, what the holder was
 * doing, why that was slow. Each link names its source: {@code recorded} (a lock event, an agent span, the agent's
 * "behind" fields) or {@code inferred} (samples, with their count). A link nothing shows is not added: the chain
 * stops where the evidence does.
 */
final class StallChain {
    /** {@code step}: "waited", "held by", "doing", "then", "slow because". */
    record Link(String step, String text, String source) {
        String line() {
            return step + ": " + text + " [" + source + "]";
        }
    }

    private final List<Link> links = new ArrayList<>();

    StallChain waited(String text, String source) {
        return add("waited", text, source);
    }

    StallChain heldBy(String text, String source) {
        return add("held by", text, source);
    }

    StallChain doing(String text, String source) {
        return add("doing", text, source);
    }

    /** The call the holder sat in inside its op (fsync(2), write(2)). */
    StallChain then(String text, String source) {
        return add("then", text, source);
    }

    StallChain slowBecause(String text, String source) {
        return add("slow because", text, source);
    }

    /**
     * The last link when the agent recorded it: the innermost of the holder's ops that names an op it ran behind
     * (the agent's behindOp, behindThread, behindOverlapMs, scope). Nothing when no op does.
     */
    StallChain behind(List<Span> ops) {
        for (int i = ops.size() - 1; i >= 0; i--) {
            Span.Behind b = ops.get(i).behind();
            if (b == null) continue;
            return slowBecause(behindText(ops.get(i).opName(), b), "recorded: the agent's behind fields");
        }
        return this;
    }

    /** "its snapshot_write ran 90 ms behind T's transfer_to, sharing the file". */
    static String behindText(String op, Span.Behind b) {
        return "its " + op + " ran " + b.overlapMs() + " ms behind " + (b.thread() == null ? "another thread" : b.thread())
            + "'s " + b.op() + (b.scope() == null || b.scope().isEmpty() ? "" : ", sharing the " + b.scope());
    }

    private StallChain add(String step, String text, String source) {
        if (text != null && !text.isEmpty()) links.add(new Link(step, text, source));
        return this;
    }

    List<Link> links() {
        return List.copyOf(links);
    }

    /** "chain 1, waited: ... [recorded: ...]": one evidence line per link, victims first. */
    List<String> lines() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < links.size(); i++) out.add("chain " + (i + 1) + ", " + links.get(i).line());
        return out;
    }
}
