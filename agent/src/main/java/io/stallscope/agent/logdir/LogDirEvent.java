package io.stallscope.agent.logdir;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * A log dir and its file system, written at every chunk of every recording (so each capture file carries it,
 * whatever part of a long recording it was cut from) and once when the agent first learns the log dir. The
 * analyzer reads it to tell an XFS log dir, where sendfile holds the inode lock a write needs, from ext4.
 */
@Name(LogDirEvent.NAME)
@Label("Log Dir")
@Category({"Stallscope", "Storage"})
@Description("A Kafka log dir and the file system it is on, from /proc/self/mountinfo")
@StackTrace(false)
@Period("everyChunk")
public final class LogDirEvent extends Event {
    public static final String NAME = "stallscope.LogDir";

    @Label("Log Dir")
    public String logDir;

    @Label("File System")
    @Description("The file system type: xfs, ext4, overlay, tmpfs... or unknown")
    public String fileSystem;

    @Label("Device")
    public String device;

    @Label("Mount Point")
    public String mountPoint;
}
