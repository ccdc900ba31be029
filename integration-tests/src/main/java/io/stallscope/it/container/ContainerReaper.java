package io.stallscope.it.container;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * With Ryuk off (it cannot be pulled here) nothing removes the containers of a test JVM that dies or
 * of a test that forgets to close its broker. Tests close their brokers; this JVM shutdown hook
 * removes whatever is still tracked, as {@code ChildProcesses} does for child JVMs.
 */
final class ContainerReaper {

    private static final Set<Object> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ContainerReaper::removeAll, "stallscope-container-reaper"));
    }

    private ContainerReaper() {
    }

    static void track(GenericContainer<?> c) {
        LIVE.add(c);
    }

    static void track(String containerId) {
        LIVE.add(containerId);
    }

    static void untrack(Object containerOrId) {
        LIVE.remove(containerOrId);
    }

    private static void removeAll() {
        for (Object o : LIVE) {
            try {
                if (o instanceof GenericContainer<?> c) {
                    c.stop();
                } else {
                    DockerClientFactory.instance().client().removeContainerCmd((String) o).withForce(true).exec();
                }
            } catch (RuntimeException | LinkageError e) {
                // best effort at JVM exit
            }
        }
    }
}
