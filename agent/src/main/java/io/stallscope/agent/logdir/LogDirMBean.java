package io.stallscope.agent.logdir;

/** JMX view of one log dir: io.stallscope:type=LogDir,name="/var/lib/kafka/data". */
public interface LogDirMBean {
    String getLogDir();

    String getFileSystem();

    String getDevice();

    String getMountPoint();
}
