package io.stallscope.testcontainers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Two brokers compared side by side, in rounds: a baseline (the Kafka version or config you run today) and a
 * candidate (the upgrade, the new config), both under load at the same time, so what else the machine does
 * hits both alike. Each round takes a snapshot of both agents, lets the workload run, takes another, and keeps
 * the op's histogram of each; {@link AbResult} compares a percentile of them with the bucket error stated.
 *
 * <pre>{@code
 * AbResult result = AbComparison.of(currentAgent, upgradedAgent).op(RECORDS_APPEND).role(REQUEST_HANDLER)
 *         .rounds(5).run(ofSeconds(60));          // while the test's producers run against both
 * assertThat(result).hasNoRegressionBeyond(1.5);
 * }</pre>
 */
public final class AbComparison {
    /** What a round does: the workload, run once per round while the comparison measures both brokers. */
    @FunctionalInterface
    public interface Round {
        void run(int round) throws Exception;
    }

    private static final Duration POLL = Duration.ofMillis(250);

    private final StallscopeAgent baseline;
    private final StallscopeAgent candidate;
    private Op op;
    private Role role;
    private double quantile = 0.999;
    private int rounds = 5;
    private long minOpsPerRound = -1;

    private AbComparison(StallscopeAgent baseline, StallscopeAgent candidate) {
        this.baseline = baseline;
        this.candidate = candidate;
    }

    /** Baseline first (what runs today), candidate second (what is tried). Attach both before starting them. */
    public static AbComparison of(StallscopeAgent baseline, StallscopeAgent candidate) {
        if (baseline == null || candidate == null) {
            throw new IllegalArgumentException("AbComparison.of(baseline, candidate): both agents are needed, the "
                    + (baseline == null ? "baseline" : "candidate") + " is null");
        }
        if (baseline == candidate) {
            throw new IllegalArgumentException("AbComparison.of(baseline, candidate): the same agent twice; compare two brokers");
        }
        return new AbComparison(baseline, candidate);
    }

    public AbComparison op(Op op) {
        this.op = Objects.requireNonNull(op, "op");
        return this;
    }

    /** Narrows to one thread role (e.g. REQUEST_HANDLER); all roles when not set. */
    public AbComparison role(Role role) {
        this.role = Objects.requireNonNull(role, "role");
        return this;
    }

    /** The percentile compared, 0.999 unless set. */
    public AbComparison quantile(double q) {
        if (!(q > 0 && q < 1)) {
            throw new IllegalArgumentException("a quantile to compare is in (0, 1), not " + q);
        }
        this.quantile = q;
        return this;
    }

    /** How many rounds, 5 unless set; a regression must show in the merged rounds and in most rounds. */
    public AbComparison rounds(int rounds) {
        if (rounds < 1 || rounds > 100) {
            throw new IllegalArgumentException("rounds must be 1 to 100, not " + rounds);
        }
        this.rounds = rounds;
        return this;
    }

    /**
     * The ops each broker must count in each round for its percentile to mean something; by default
     * {@code 5 / (1 - quantile)}, e.g. 5,000 for p99.9, whose value is then the 5th slowest op of the round.
     */
    public AbComparison minOpsPerRound(long ops) {
        if (ops < 1) {
            throw new IllegalArgumentException("minOpsPerRound must be 1 or more, not " + ops);
        }
        this.minOpsPerRound = ops;
        return this;
    }

    long minOps() {
        return minOpsPerRound > 0 ? minOpsPerRound : (long) Math.ceil(5 / (1 - quantile));
    }

    /**
     * Runs the rounds while the test's own workload runs against both brokers in the background: each round
     * lasts until both brokers counted {@link #minOpsPerRound} ops of the selection, or fails after {@code timeoutPerRound}.
     */
    public AbResult run(Duration timeoutPerRound) throws Exception {
        Objects.requireNonNull(timeoutPerRound, "timeoutPerRound");
        return measure((round, baseBefore, candBefore) -> awaitOps(round, baseBefore, candBefore, timeoutPerRound));
    }

    /** Runs the rounds, calling {@code workload} once in each between the snapshots. */
    public AbResult run(Round workload) throws Exception {
        Objects.requireNonNull(workload, "workload");
        return measure((round, baseBefore, candBefore) -> workload.run(round));
    }

    private interface Between {
        void run(int round, MetricsSnapshot baseBefore, MetricsSnapshot candBefore) throws Exception;
    }

    private AbResult measure(Between between) throws Exception {
        if (op == null) {
            throw new IllegalStateException("AbComparison: name the op to compare first, e.g. .op(Op.RECORDS_APPEND)");
        }
        List<AbResult.RoundHistograms> measured = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            MetricsSnapshot baseBefore = baseline.snapshot();
            MetricsSnapshot candBefore = candidate.snapshot();
            between.run(r, baseBefore, candBefore);
            MetricsSnapshot candAfter = candidate.snapshot();
            MetricsSnapshot baseAfter = baseline.snapshot();
            measured.add(new AbResult.RoundHistograms(
                    query(Stalls.between(baseBefore, baseAfter)).histogram(),
                    query(Stalls.between(candBefore, candAfter)).histogram()));
        }
        return new AbResult(describe(baseline), describe(candidate), quantile, minOps(), measured, candidate.slowOpLines());
    }

    private void awaitOps(int round, MetricsSnapshot baseBefore, MetricsSnapshot candBefore, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long need = minOps();
        while (true) {
            long base = query(Stalls.between(baseBefore, baseline.snapshot())).count();
            long cand = query(Stalls.between(candBefore, candidate.snapshot())).count();
            if (base >= need && cand >= need) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("round " + (round + 1) + " of the comparison: after " + timeout + " the baseline"
                        + " counted " + base + " and the candidate " + cand + " " + op + " ops, " + need + " needed each:"
                        + " is a workload running against both brokers? (or lower minOpsPerRound, or raise the timeout)");
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    private OpQuery query(StallView view) {
        OpQuery q = view.op(op);
        return role == null ? q : q.role(role);
    }

    private static String describe(StallscopeAgent agent) {
        return agent.container().getDockerImageName();
    }
}
