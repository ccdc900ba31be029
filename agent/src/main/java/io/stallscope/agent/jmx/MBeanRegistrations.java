package io.stallscope.agent.jmx;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The agent's MBeans in the platform server: each replaces one of the same name (an agent attached again,
 * a restarted component), and all are removed on close, so a detached agent leaves none behind.
 */
public final class MBeanRegistrations implements AutoCloseable {
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final List<ObjectName> registered = new CopyOnWriteArrayList<>();

    public <T> void register(ObjectName name, T view, Class<T> mbeanInterface) throws JMException {
        if (server.isRegistered(name)) {
            server.unregisterMBean(name);
        }
        server.registerMBean(new StandardMBean(view, mbeanInterface), name);
        registered.add(name);
    }

    @Override
    public void close() {
        for (ObjectName name : registered) {
            try {
                server.unregisterMBean(name);
            } catch (Exception ignored) {
                // already gone
            }
        }
        registered.clear();
    }
}
