package com.example.kafka;

import io.stallscope.it.realdisk.FsType;
import io.stallscope.it.realdisk.RealDisk;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Path;

/**
 * A loop-backed XFS volume for a broker's log dir, made with Stallscope's real-disk harness (root and xfsprogs;
 * a team with a slow disk of its own bind-mounts that instead). Without root it is skipped with the reason, and
 * fails under CI=true.
 */
final class SlowVolumes {
    private SlowVolumes() {
    }

    static RealDisk xfs() {
        RealDisk.unavailableReason().ifPresent(reason -> {
            if ("true".equals(System.getenv("CI"))) {
                throw new IllegalStateException("no slow volume under CI=true: " + reason);
            }
            Assumptions.abort("no slow volume: " + reason);
        });
        return RealDisk.create(FsType.XFS, 1L << 30, Path.of("target/volumes").toAbsolutePath());
    }
}
