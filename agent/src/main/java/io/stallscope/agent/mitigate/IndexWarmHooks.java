package io.stallscope.agent.mitigate;

/** Called from the advice on entering an index lookup; does nothing unless index-warm is installed. */
public final class IndexWarmHooks {
    private static volatile IndexWarmer warmer;
    private static volatile IndexWarmMetrics metrics;

    private IndexWarmHooks() {
    }

    static void install(IndexWarmer w, IndexWarmMetrics m) {
        metrics = m;
        warmer = w;
    }

    static IndexWarmer uninstall() {
        IndexWarmer was = warmer;
        warmer = null;
        return was;
    }

    public static void beforeLookup(Object index) {
        IndexWarmer w = warmer;
        if (w == null) {
            return;
        }
        try {
            w.beforeLookup(index);
        } catch (Throwable t) {
            // the lookup runs as Kafka wrote it, faulting on what is cold
            IndexWarmMetrics m = metrics;
            if (m != null) {
                m.failed(t);
            }
        }
    }
}
