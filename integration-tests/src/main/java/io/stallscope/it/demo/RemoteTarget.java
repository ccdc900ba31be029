package io.stallscope.it.demo;

import java.net.URI;

/**
 * An operator's own broker with the agent already on it. The demo only drives load at it (its own two
 * topics) and reads the agent's endpoint: no simulated disk, no page-cache eviction, nothing injected.
 */
final class RemoteTarget implements DemoTarget {
    private final String bootstrap;
    private final MetricsEndpoint metrics;

    RemoteTarget(String bootstrap, URI metrics) {
        this.bootstrap = bootstrap;
        this.metrics = new MetricsEndpoint(metrics);
    }

    @Override
    public String bootstrap() {
        return bootstrap;
    }

    @Override
    public MetricsEndpoint metrics() {
        return metrics;
    }

    @Override
    public String coolBacklog(DemoTopics topics) {
        return "the backlog stays as your broker's page cache has it (the demo never evicts on your broker)";
    }

    @Override
    public void close() {
        // not ours to stop
    }
}
