package io.stallscope.agent.bench;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.bootstrap.Hooks;
import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.model.ThreadRoles;
import io.stallscope.agent.logging.BrokerLog;
import io.stallscope.agent.report.OpMetrics;
import io.stallscope.agent.report.OpRecorder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Exactly what the advice adds to one instrumented call: Hooks.enter and Hooks.exit into the real
 * recorder and Micrometer timers, on a request-handler thread, below every reporting threshold.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class HookCostBenchmark {
    private final Object subject = new Object();
    private final ReentrantReadWriteLock remapLock = new ReentrantReadWriteLock();
    private io.stallscope.agent.report.OpHistogram histogram;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Thread.currentThread().setName("data-plane-kafka-request-handler-0");
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().pauseDetector(new io.micrometer.core.instrument.distribution.pause.NoPauseDetector());
        OpMetrics metrics = new OpMetrics(registry, false, 100);
        histogram = metrics.histogram(Op.RECORDS_APPEND, 1);
        Hooks.install(new OpRecorder(metrics, new ThreadRoles(List.of("CONTROLLER")),
            AgentOptions.parse("", java.util.Map.of()), BrokerLog.get(), false));
    }

    @Benchmark
    public long enterExit() {
        long start = Hooks.enter(Op.RECORDS_APPEND, subject);
        Hooks.exit(Op.RECORDS_APPEND, start, subject, 1100, null);
        return start;
    }

    /** An op without a byte count (a roll, a read): no counter update. */
    @Benchmark
    public long enterExitNoBytes() {
        long start = Hooks.enter(Op.LOG_ROLL, subject);
        Hooks.exit(Op.LOG_ROLL, start, subject, -1L, null);
        return start;
    }

    /**
     * What every lookup of a 3.9.2+ index adds for index_remap_wait when no resize holds its remap lock (the usual
     * case): two reads of the lock's state, nothing timed.
     */
    @Benchmark
    public ReentrantReadWriteLock remapWaitUncontended() {
        Hooks.awaitShared(Op.INDEX_REMAP_WAIT, subject, remapLock);
        return remapLock;
    }

    /** The histogram alone, for the split of the cost. */
    @Benchmark
    public void histogramOnly() {
        histogram.record(1000);
    }

    @Benchmark
    public long baseline() {
        return System.nanoTime();
    }
}
