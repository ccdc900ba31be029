package io.stallscope.analyzer.analysis.waits;

import io.stallscope.analyzer.analysis.stacks.IoOp;

/**
 * Who held the lock during a wait: {@code how} is "recorded" (JFR's previousOwner) or "inferred" (from samples,
 * with {@code confidence} in 0..1); {@code stack} is what the holder was doing (its most sampled stack then)
 * and {@code op} the storage call it sat in. It lives beside the {@link Wait} that carries it, not with the
 * holders step that fills it in ({@code holders.HolderAttributor}): waits come first and use nothing after them.
 */
public record Holder(int thread, String how, double confidence, int stack, IoOp op) {
    public static final String RECORDED = "recorded";
    public static final String INFERRED = "inferred";
}
