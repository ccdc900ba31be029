package io.stallscope.agent.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** A test's worker threads, named as a broker's threads, kept alive until the test ends: {@link #release} ends them. */
final class Workers {
    /** What a worker waits on once its ops are done: a broker's thread lives on after its op. */
    final CountDownLatch release = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();

    Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    /** Lets every worker end, and waits for them (10 s each at most). */
    void releaseAll() throws InterruptedException {
        release.countDown();
        for (Thread t : threads) {
            t.join(10_000);
        }
    }
}
