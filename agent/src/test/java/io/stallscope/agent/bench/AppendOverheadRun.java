package io.stallscope.agent.bench;

import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Runs {@link AppendBenchmark} plain and with the agent, alternating, in one process, and prints the
 * per-call difference. Usage: AppendOverheadRun AGENT_JAR [rounds]
 */
public final class AppendOverheadRun {
    private AppendOverheadRun() {
    }

    public static void main(String[] args) throws Exception {
        String jar = args[0];
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        List<double[]> pairs = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            double plain = run(null);
            // activate.main=.* because the JMH fork's main class is not kafka.Kafka
            double agent = run("-javaagent:" + jar + "=activate.main=.*");
            pairs.add(new double[] {plain, agent});
            System.out.printf(Locale.ROOT, "round %d: plain %.1f ns/op, with agent %.1f ns/op, added %.1f ns%n",
                round, plain, agent, agent - plain);
        }
        double[] added = pairs.stream().mapToDouble(p -> p[1] - p[0]).sorted().toArray();
        double[] plain = pairs.stream().mapToDouble(p -> p[0]).sorted().toArray();
        double[] agent = pairs.stream().mapToDouble(p -> p[1]).sorted().toArray();
        System.out.printf(Locale.ROOT, "median of %d rounds: plain %.1f ns/op, with agent %.1f ns/op, added %.1f ns per call%n",
            rounds, plain[plain.length / 2], agent[agent.length / 2], added[added.length / 2]);
    }

    private static double run(String agentArg) throws Exception {
        ChainedOptionsBuilder options = new OptionsBuilder()
            .include(AppendBenchmark.class.getName())
            .forks(1)
            .warmupIterations(3).warmupTime(TimeValue.seconds(2))
            .measurementIterations(5).measurementTime(TimeValue.seconds(2))
            .jvmArgsAppend("-Xmx512m");
        if (agentArg != null) {
            options.jvmArgsAppend("-Xmx512m", agentArg);
        }
        Collection<RunResult> results = new Runner(options.build()).run();
        return results.iterator().next().getPrimaryResult().getScore();
    }
}
