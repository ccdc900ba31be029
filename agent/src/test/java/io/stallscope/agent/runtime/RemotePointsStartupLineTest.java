package io.stallscope.agent.runtime;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stallscope.agent.config.AgentOptions;
import io.stallscope.agent.instrument.InstrumentationPoint;
import io.stallscope.agent.instrument.PointPlan;
import io.stallscope.agent.instrument.Points;
import io.stallscope.agent.kafka.KafkaJars;
import io.stallscope.agent.kafka.TargetResolver;
import io.stallscope.agent.report.OpMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tiered-storage points in the start-up line, resolved against each version's jars as the agent resolves them in a
 * broker: skipped with their reason where Kafka has no tiered storage, instrumented on Kafka's wrapper of the plugin
 * where it has; and the idle series they add stay within the budget.
 */
class RemotePointsStartupLineTest {
    private static final String[] REMOTE_OPS = {"remote_fetch", "remote_fetch_index", "remote_copy", "remote_delete"};
    /**
     * The remote read's points; remote_index_lookup counts the cache's lookups, with remote_index_load;
     * remote_fetch_expiry ends the waits of reads cancelled in the queue, with remote_queue_wait.
     */
    private static final String[] READ_OPS = {"remote_queue_wait", "remote_read", "remote_index_load",
        "remote_index_lookup", "remote_fetch_expiry"};

    @ParameterizedTest
    @ValueSource(strings = {"2.8.2", "3.4.1"})
    void aKafkaWithoutTieredStorageSaysTheRemoteOpsAreAbsent(String version) {
        String line = startupLine(version);
        System.out.println(version + ": " + line);
        assertThat(line).doesNotContain("problems");
        for (String op : REMOTE_OPS) {
            assertThat(line).contains("; " + op + " (expected before Kafka 3.5: no tiered storage (KIP-405), no "
                + "remote-storage plugin to call (no class of [org.apache.kafka.server.log.remote.storage."
                + "ClassLoaderAwareRemoteStorageManager] on the class path))").doesNotContain(op + "=");
        }
        for (String op : READ_OPS) {
            assertThat(line).contains("; " + op + " (expected before Kafka 3.6: no reads from the remote tier")
                .doesNotContain(op + "=");
        }
    }

    /** 3.5 has the plugin's wrapper (and a RemoteLogManager) but no remote read: its reader points are absent. */
    @Test
    void kafka35HasThePluginCallsButNoRemoteRead() {
        String line = startupLine("3.5.2");
        assertThat(line).contains("remote_fetch=").contains("; remote_queue_wait (expected before Kafka 3.6: no reads from"
            + " the remote tier (RemoteLogReader came in 3.6)").contains("; remote_read (expected before Kafka 3.6: ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.6.2", "3.9.2", "4.1.2", "4.4.0"})
    void aKafkaWithRemoteReadsHasTheReaderPoints(String version) {
        String line = startupLine(version);
        String pkg = version.startsWith("3.") ? "kafka.log.remote." : "org.apache.kafka.server.log.remote.storage.";
        // DelayedRemoteFetch: Scala in kafka.server up to 4.1, Java in the purgatory package from 4.2
        String expiring = version.compareTo("4.2") < 0 ? "kafka.server." : "org.apache.kafka.server.purgatory.";
        assertThat(line).contains("remote_queue_wait=" + pkg + "RemoteLogManager.asyncRead(")
            .contains("remote_fetch_expiry=" + expiring + "DelayedRemoteFetch.onExpiration()V")
            .contains("remote_read=" + pkg + "RemoteLogReader.call()Ljava/lang/Void;")
            .doesNotContain("RemoteLogReader.call()Ljava/lang/Object;")
            .contains("remote_index_load=org.apache.kafka.storage.internals.log.RemoteIndexCache.createCacheEntry(")
            .contains("remote_index_lookup=org.apache.kafka.storage.internals.log.RemoteIndexCache.getIndexEntry("
                + "Lorg/apache/kafka/server/log/remote/storage/RemoteLogSegmentMetadata;)"
                + "Lorg/apache/kafka/storage/internals/log/RemoteIndexCache$Entry;");
    }

    @ParameterizedTest
    @ValueSource(strings = {"3.5.2", "3.6.2", "3.9.2", "4.1.2", "4.4.0"})
    void aKafkaWithTieredStorageHasTheRemoteOpsOnItsPluginWrapper(String version) {
        String line = startupLine(version);
        String wrapper = "org.apache.kafka.server.log.remote.storage.ClassLoaderAwareRemoteStorageManager.";
        String meta = "Lorg/apache/kafka/server/log/remote/storage/RemoteLogSegmentMetadata;";
        assertThat(line)
            .contains("remote_fetch=" + wrapper + "fetchLogSegment(" + meta + "I)Ljava/io/InputStream; + " + wrapper
                + "fetchLogSegment(" + meta + "II)Ljava/io/InputStream;")
            .contains("remote_fetch_index=" + wrapper + "fetchIndex(" + meta)
            .contains("remote_copy=" + wrapper + "copyLogSegmentData(" + meta)
            .contains("remote_delete=" + wrapper + "deleteLogSegmentData(" + meta + ")V");
        for (String op : REMOTE_OPS) {
            assertThat(line).doesNotContain("; " + op + " (").doesNotContain("[" + op + " (");
        }
    }

    /** remote_index_lookup goes with remote_index_load, whose advice tells it a miss: ops= switches both, and says so. */
    @Test
    void theCacheLookupsAreCountedOnlyWithTheLoadInOps() throws Exception {
        try (KafkaJars jars = KafkaJars.of("4.4.0")) {
            TargetResolver resolver = new TargetResolver(jars.pool(), "4.4.0");
            String without = StartupReport.line("active (premain)", RunningAgent.plan(resolver,
                AgentOptions.parse("ops=remote_read", Map.of()), null), List.of("prometheus off"), List.of());
            assertThat(without).contains("instrumented 1 of 23 points [remote_read=")
                .contains("; remote_index_load (not in ops=)")
                .contains("; remote_index_lookup (goes with remote_index_load, not in ops=)");
            String with = StartupReport.line("active (premain)", RunningAgent.plan(resolver,
                AgentOptions.parse("ops=remote_index_load", Map.of()), null), List.of("prometheus off"), List.of());
            assertThat(with).contains("instrumented 2 of 23 points [remote_index_load=")
                .contains(", remote_index_lookup=org.apache.kafka.storage.internals.log.RemoteIndexCache.getIndexEntry(");
        }
    }

    /** remote_fetch_expiry ends remote_queue_wait's waits: ops= switches it with that op, and says so. */
    @Test
    void theExpiryGoesWithTheQueueWaitInOps() throws Exception {
        try (KafkaJars jars = KafkaJars.of("3.9.2")) {
            TargetResolver resolver = new TargetResolver(jars.pool(), "3.9.2");
            String without = StartupReport.line("active (premain)", RunningAgent.plan(resolver,
                AgentOptions.parse("ops=remote_read", Map.of()), null), List.of("prometheus off"), List.of());
            assertThat(without).contains("; remote_fetch_expiry (goes with remote_queue_wait, not in ops=)");
            String with = StartupReport.line("active (premain)", RunningAgent.plan(resolver,
                AgentOptions.parse("ops=remote_queue_wait", Map.of()), null), List.of("prometheus off"), List.of());
            assertThat(with).contains("instrumented 2 of 23 points [remote_queue_wait=")
                .contains(", remote_fetch_expiry=kafka.server.DelayedRemoteFetch.onExpiration()V");
        }
    }

    /**
     * The metric series a fresh agent exports before any op (those of every declared op and role): the remote ops'
     * are declared on the roles they run on only, and the total stays within 1,500.
     */
    @Test
    void theIdleSeriesStayWithinTheBudget() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new OpMetrics(registry, false, 100);
        String scrape = registry.scrape();
        long series = scrape.lines().filter(l -> !l.isEmpty() && !l.startsWith("#")).count();
        long remote = scrape.lines().filter(l -> !l.startsWith("#") && l.contains("op=\"remote_")).count();
        System.out.println("idle series: " + series + ", of which remote ops: " + remote);
        assertThat(series).isLessThanOrEqualTo(1500);
        assertThat(scrape).contains("stallscope_op_seconds_count{op=\"remote_fetch\",role=\"request_handler\"} 0")
            .doesNotContain("op=\"remote_copy\",role=\"request_handler\"")
            .doesNotContain("op=\"remote_fetch\",role=\"network\"")
            // the remote index cache's lookups: a counter pair, no histogram
            .contains("stallscope_remote_index_cache_total{result=\"hit\"} 0.0")
            .contains("stallscope_remote_index_cache_total{result=\"miss\"} 0.0")
            .doesNotContain("op=\"remote_index_lookup\"");
    }

    private static String startupLine(String version) {
        List<PointPlan> plans = new ArrayList<>();
        try (KafkaJars jars = KafkaJars.of(version)) {
            TargetResolver resolver = new TargetResolver(jars.pool(), version);
            for (InstrumentationPoint p : Points.all()) {
                plans.add(PointPlan.of(p, resolver.resolve(p.target())));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return StartupReport.line("active (premain)", plans, Collections.singletonList("prometheus off"),
            Collections.emptyList());
    }
}
