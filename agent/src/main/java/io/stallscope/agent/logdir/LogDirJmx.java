package io.stallscope.agent.logdir;

import io.stallscope.agent.jmx.MBeanRegistrations;

import javax.management.ObjectName;

/** Registers an MBean per log dir beside the OpStats ones, and removes them on detach. */
public final class LogDirJmx implements LogDirListener {
    private final MBeanRegistrations registrations = new MBeanRegistrations();

    @Override
    public void learned(LogDirInfo info) {
        try {
            registrations.register(new ObjectName("io.stallscope:type=LogDir,name=" + ObjectName.quote(info.logDir())),
                new View(info), LogDirMBean.class);
        } catch (Exception e) {
            throw new IllegalStateException("log dir MBean for " + info.logDir() + " not registered", e);
        }
    }

    @Override
    public void close() {
        registrations.close();
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
