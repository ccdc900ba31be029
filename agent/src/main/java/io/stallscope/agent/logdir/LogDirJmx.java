package io.stallscope.agent.logdir;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Registers an MBean per log dir beside the OpStats ones, and removes them on detach. */
public final class LogDirJmx implements LogDirListener {
    private final List<ObjectName> registered = new CopyOnWriteArrayList<>();

    @Override
    public void learned(LogDirInfo info) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.stallscope:type=LogDir,name=" + ObjectName.quote(info.logDir()));
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
            server.registerMBean(new StandardMBean(new View(info), LogDirMBean.class), name);
            registered.add(name);
        } catch (Exception e) {
            throw new IllegalStateException("log dir MBean for " + info.logDir() + " not registered", e);
        }
    }

    @Override
    public void close() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName name : registered) {
            try {
                server.unregisterMBean(name);
            } catch (Exception ignored) {
                // already gone
            }
        }
        registered.clear();
    }

    private static final class View implements LogDirMBean {
        private final LogDirInfo info;

        View(LogDirInfo info) {
            this.info = info;
        }

        @Override
        public String getLogDir() {
            return info.logDir();
        }

        @Override
        public String getFileSystem() {
            return info.fsType();
        }

        @Override
        public String getDevice() {
            return info.device();
        }

        @Override
        public String getMountPoint() {
            return info.mountPoint();
        }
    }
}
