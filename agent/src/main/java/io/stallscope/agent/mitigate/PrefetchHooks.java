package io.stallscope.agent.mitigate;

/** Called from the advice on the exit of LogSegment.read; does nothing unless prefetch is installed. */
public final class PrefetchHooks {
    private static volatile PageWarmer warmer;
    private static volatile MitigationMetrics metrics;

    private PrefetchHooks() {
    }

    static void install(PageWarmer w, MitigationMetrics m) {
        metrics = m;
        warmer = w;
    }

    static PageWarmer uninstall() {
        PageWarmer was = warmer;
        warmer = null;
        return was;
    }

    public static void afterRead(Object fetchDataInfo) {
        PageWarmer w = warmer;
        if (w == null) {
            return;
        }
        try {
            w.warm(fetchDataInfo);
        } catch (Throwable t) {
            // the fetch goes on exactly as without the mitigation: the network thread reads the disk
            MitigationMetrics m = metrics;
            if (m != null) {
                m.failed(PageWarmer.MITIGATION, t);
            }
        }
    }
}
