package io.stallscope.agent.capture;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import javax.management.ObjectName;

/**
 * The JDK's Flight Recorder keeps its on-disk buffers under java.io.tmpdir and cannot start when that is
 * not a writable directory. Then (and only then: the repository is JVM-wide) it is pointed at our private
 * work directory through the JFR.configure diagnostic command, as jcmd would.
 */
final class JfrRepository {
    private JfrRepository() {
    }

    /** Returns a note for the startup line when the repository was moved, else "". */
    static String ensureUsable(Path work) throws Exception {
        Path tmp = Paths.get(System.getProperty("java.io.tmpdir", "/tmp"));
        if (Files.isDirectory(tmp) && Files.isWritable(tmp)) {
            return "";
        }
        Path repo = work.resolve("jfr-repository");
        Files.createDirectories(repo);
        ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
            "jfrConfigure", new Object[] {new String[] {"repositorypath=" + repo}},
            new String[] {String[].class.getName()});
        return "; java.io.tmpdir " + tmp + " is not a writable directory, JFR's repository moved to " + repo;
    }
}
