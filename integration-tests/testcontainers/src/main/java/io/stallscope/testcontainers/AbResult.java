package io.stallscope.testcontainers;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What an {@link AbComparison} measured: the op's histogram of the baseline and of the candidate, per round and
 * merged, and the verdict. The candidate {@linkplain #isSlowerBeyond(double) is slower beyond a factor} only
 * when the bucket error cannot explain it: the lower bound of the candidate's percentile exceeds the factor
 * times the upper bound of the baseline's, in the merged rounds and in most rounds. So a true ratio under the
 * factor never fails; with the agent's buckets (1, 2.5, 5 per decade) a ratio of 1.5 x 2.5 x 2.5 (~9.4x) or
 * more always does, and one in between does when it crosses the buckets that far.
 */
public final class AbResult {
    /** One round: the baseline's and the candidate's histogram of the op between that round's snapshots. */
    static final class RoundHistograms {
        final OpHistogram baseline;
        final OpHistogram candidate;

        RoundHistograms(OpHistogram baseline, OpHistogram candidate) {
            this.baseline = baseline;
            this.candidate = candidate;
        }
    }

    private final String baselineName;
    private final String candidateName;
    private final double quantile;
    private final long minOpsPerRound;
    private final List<RoundHistograms> rounds;
    private final List<String> candidateSlowOpLines;

    AbResult(String baselineName, String candidateName, double quantile, long minOpsPerRound,
             List<RoundHistograms> rounds, List<String> candidateSlowOpLines) {
        this.baselineName = baselineName;
        this.candidateName = candidateName;
        this.quantile = quantile;
        this.minOpsPerRound = minOpsPerRound;
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("a comparison of no rounds");
        }
        this.rounds = List.copyOf(rounds);
        this.candidateSlowOpLines = List.copyOf(candidateSlowOpLines);
    }

    public int rounds() {
        return rounds.size();
    }

    /** The baseline's histogram over all rounds. */
    public OpHistogram baseline() {
        return merged(true);
    }

    /** The candidate's histogram over all rounds. */
    public OpHistogram candidate() {
        return merged(false);
    }

    public OpHistogram baseline(int round) {
        return rounds.get(round).baseline;
    }

    public OpHistogram candidate(int round) {
        return rounds.get(round).candidate;
    }

    private OpHistogram merged(boolean baselineSide) {
        OpHistogram sum = null;
        for (RoundHistograms r : rounds) {
            OpHistogram h = baselineSide ? r.baseline : r.candidate;
            sum = sum == null ? h : sum.plus(h);
        }
        return sum;
    }

    public double quantile() {
        return quantile;
    }

    /**
     * The rounds in which a broker counted fewer ops than a meaningful percentile needs (null if none): then the
     * comparison proves nothing either way.
     */
    public String tooFewOps() {
        List<String> short_ = new ArrayList<>();
        for (int r = 0; r < rounds.size(); r++) {
            long b = rounds.get(r).baseline.count();
            long c = rounds.get(r).candidate.count();
            if (b < minOpsPerRound || c < minOpsPerRound) {
                short_.add("round " + (r + 1) + ": baseline " + b + ", candidate " + c);
            }
        }
        return short_.isEmpty() ? null : "fewer than " + minOpsPerRound + " ops for a p" + label() + " in "
                + String.join("; ", short_);
    }

    /** The candidate's percentile is over {@code factor} x the baseline's beyond the bucket error, merged and in most rounds. */
    public boolean isSlowerBeyond(double factor) {
        return slowerBeyond(candidate(), baseline(), factor) && roundsSlowerBeyond(factor, false) * 2 > rounds.size();
    }

    /** The same with the two swapped: the candidate is faster beyond the factor (an improvement, or a broken baseline). */
    public boolean isFasterBeyond(double factor) {
        return slowerBeyond(baseline(), candidate(), factor) && roundsSlowerBeyond(factor, true) * 2 > rounds.size();
    }

    /** In how many rounds the candidate was slower beyond the factor and the bucket error. */
    public int roundsSlowerBeyond(double factor) {
        return roundsSlowerBeyond(factor, false);
    }

    private int roundsSlowerBeyond(double factor, boolean swapped) {
        int n = 0;
        for (RoundHistograms r : rounds) {
            if (swapped ? slowerBeyond(r.baseline, r.candidate, factor) : slowerBeyond(r.candidate, r.baseline, factor)) {
                n++;
            }
        }
        return n;
    }

    private boolean slowerBeyond(OpHistogram slower, OpHistogram faster, double factor) {
        if (!(factor >= 1)) {
            throw new IllegalArgumentException("a factor is 1 or more, not " + factor);
        }
        Percentile s = slower.percentile(quantile);
        Percentile f = faster.percentile(quantile);
        if (s.isEmpty() || f.isEmpty() || f.upper() == null) {
            return false;
        }
        return s.lower().toNanos() > factor * f.upper().toNanos();
    }

    /** The estimates' ratio, candidate over baseline (merged rounds): for reading, not for verdicts. */
    public double estimateRatio() {
        return ratio(candidate().percentile(quantile), baseline().percentile(quantile));
    }

    /** The table a failure prints: each round's percentile of both, with their buckets, then the merged rounds. */
    public String table() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "p%s of %s, baseline %s, candidate %s%n",
                label(), baseline().selection(), baselineName, candidateName));
        for (int r = 0; r < rounds.size(); r++) {
            sb.append(line("round " + (r + 1), rounds.get(r).baseline, rounds.get(r).candidate));
        }
        sb.append(line("merged", baseline(), candidate()));
        return sb.toString();
    }

    /** The table, both merged histograms and the candidate's slow-op lines: what a failed assertion shows. */
    public String evidence() {
        StringBuilder sb = new StringBuilder(table());
        sb.append("baseline ").append(baseline().table());
        sb.append("candidate ").append(candidate().table());
        if (!candidateSlowOpLines.isEmpty()) {
            sb.append("candidate's slow-op lines (last 20):\n");
            for (String l : candidateSlowOpLines.subList(Math.max(0, candidateSlowOpLines.size() - 20), candidateSlowOpLines.size())) {
                sb.append("  ").append(l.trim()).append('\n');
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return table();
    }

    private String line(String name, OpHistogram base, OpHistogram cand) {
        Percentile b = base.percentile(quantile);
        Percentile c = cand.percentile(quantile);
        return String.format(Locale.ROOT, "  %-8s baseline %s | candidate %s | ratio %.2f%n", name, brief(b), brief(c), ratio(c, b));
    }

    private static String brief(Percentile p) {
        if (p.isEmpty()) {
            return "no ops";
        }
        return Percentile.format(p.estimate()) + " (" + Percentile.format(p.lower()) + "-"
                + (p.upper() == null ? "+Inf" : Percentile.format(p.upper())) + ", " + p.count() + " ops)";
    }

    private static double ratio(Percentile a, Percentile b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Double.NaN;
        }
        return Math.max(a.estimate().toNanos(), 1) / (double) Math.max(b.estimate().toNanos(), 1);
    }

    private String label() {
        return String.format(Locale.ROOT, "%s", quantile * 100).replaceAll("\\.0$", "");
    }
}
