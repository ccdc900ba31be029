package io.stallscope.testcontainers;

import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;

import java.io.IOException;

/**
 * A cold backlog: drops a directory's segment files from the page cache, from inside the container, so the
 * next read of them goes to the disk. Each file is written back and dropped with GNU dd's
 * {@code oflag=nocache conv=notrunc,fdatasync count=0} (an fdatasync then POSIX_FADV_DONTNEED, nothing
 * written), which needs {@code sh} and GNU {@code dd} in the image, as apache/kafka has.
 */
public final class PageCacheEviction {
    private PageCacheEviction() {
    }

    /** Evicts every {@code *.log} file under {@code dir} (e.g. {@code /var/lib/kafka/data/orders-0}); returns how many. */
    public static int evictSegments(GenericContainer<?> container, String dir) {
        if (!dir.startsWith("/") || dir.contains("'")) {
            throw new IllegalArgumentException("dir must be an absolute path without quotes, not " + dir);
        }
        String script = "n=0; for f in '" + dir + "'/*.log; do [ -f \"$f\" ] || continue;"
                + " dd of=\"$f\" oflag=nocache conv=notrunc,fdatasync count=0 status=none || exit 3; n=$((n+1)); done; echo $n";
        Container.ExecResult r;
        try {
            r = container.execInContainer("sh", "-c", script);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run sh in container " + container.getDockerImageName() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (r.getExitCode() != 0) {
            throw new IllegalStateException("evicting " + dir + " from the page cache in container " + container.getDockerImageName()
                    + " failed (exit " + r.getExitCode() + "): " + r.getStderr().trim() + " (the image needs sh and GNU dd)");
        }
        int n = Integer.parseInt(r.getStdout().trim());
        if (n == 0) {
            throw new IllegalStateException("no *.log segment files in " + dir + " in container " + container.getDockerImageName()
                    + ": is it the partition's directory under the broker's log.dirs?");
        }
        return n;
    }
}
