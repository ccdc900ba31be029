package io.stallscope.analyzer.analysis.stacks;

/** The storage or network system call a stack shows a thread in. */
public enum IoOp {
    WRITE("write"), FSYNC("fsync"), SENDFILE("sendfile"), FTRUNCATE("ftruncate"), MUNMAP("munmap"),
    FILE_READ("read"), SOCKET("socket"), NONE("none");

    public final String syscall;

    IoOp(String syscall) {
        this.syscall = syscall;
    }

    /** A file operation that can stall on the storage path. */
    public boolean storage() {
        return this != NONE && this != SOCKET;
    }
}
