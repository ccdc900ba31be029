package io.stallscope.testcontainers;

import org.testcontainers.containers.GenericContainer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A CPU quota on a running container, written into its cgroup as the engine's {@code --cpu-quota} does at
 * creation (podman 4.3's Docker API has no container update). cgroup v1 ({@code cpu.cfs_quota_us}) or v2
 * ({@code cpu.max}); needs root. {@link #close()} lifts it.
 */
final class CpuQuota implements AutoCloseable {
    private final Path file;
    private final String unlimited;

    private CpuQuota(Path file, String unlimited) {
        this.file = file;
        this.unlimited = unlimited;
    }

    /** Limits the container to {@code quotaMicros} of CPU time per 100 ms. */
    static CpuQuota limit(GenericContainer<?> container, long quotaMicros) throws IOException {
        Long pid = container.getCurrentContainerInfo().getState().getPidLong();
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/cgroup"))) {
            String[] f = line.split(":", 3);
            if (f[0].equals("0") && f[1].isEmpty() && Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers"))) {
                Path max = Path.of("/sys/fs/cgroup" + f[2], "cpu.max");
                Files.writeString(max, quotaMicros + " 100000");
                return new CpuQuota(max, "max 100000");
            }
            if (java.util.List.of(f[1].split(",")).contains("cpu")) {
                Path dir = Path.of("/sys/fs/cgroup/cpu" + f[2]);
                if (!Files.isDirectory(dir)) {
                    dir = Path.of("/sys/fs/cgroup/" + f[1] + f[2]);
                }
                Files.writeString(dir.resolve("cpu.cfs_period_us"), "100000");
                Path quota = dir.resolve("cpu.cfs_quota_us");
                Files.writeString(quota, Long.toString(quotaMicros));
                return new CpuQuota(quota, "-1");
            }
        }
        throw new IOException("no cpu cgroup for the container's process " + pid + " in /proc/" + pid + "/cgroup");
    }

    @Override
    public void close() throws IOException {
        Files.writeString(file, unlimited);
    }
}
