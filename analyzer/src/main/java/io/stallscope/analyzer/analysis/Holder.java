package io.stallscope.analyzer.analysis;

/**
 * Who held the lock during a wait: {@code how} is "recorded" (JFR's previousOwner) or "inferred" (from samples,
 * with {@code confidence} in 0..1); {@code stack} is what the holder was doing (its most sampled stack then)
 * and {@code op} the storage call it sat in.
 */
public record Holder(int thread, String how, double confidence, int stack, IoOp op) {
    public static final String RECORDED = "recorded";
    public static final String INFERRED = "inferred";
}
