package io.stallscope.it.mitigate;

import io.stallscope.it.slowdisk.ShimCall;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the prefetch tests require of the shim's log of a catch-up over evicted segments: the network
 * threads met at most a few cold pages. (The warm-up itself maps and faults the pages in, which the shim,
 * intercepting sendfile and pread, neither sees nor delays.) Not none: this VM's kernel reclaims idle page-cache pages proactively (DAMON pageout;
 * measured: a file read once loses about 1.5% of its pages within 3 s with 20 GB free), so a page the
 * warm-up loaded can be gone again by the time the network thread sends it, more often under load. A
 * skipped warm-up leaves whole slices cold on the network thread and fails both checks.
 */
final class WarmUpCheck {
    /** Cold bytes the network threads may meet, as a share of the rolled segments' bytes. */
    static final double RECLAIMED_SHARE = 0.05;

    private WarmUpCheck() {
    }

    static void assertNetworkReadWarmPages(List<ShimCall> network, List<Path> rolled) throws Exception {
        long rolledBytes = 0;
        for (Path segment : rolled) {
            rolledBytes += Files.size(segment);
        }
        long networkCold = network.stream().mapToLong(ShimCall::coldBytes).sum();
        assertThat(networkCold).as("cold bytes the network threads read (at most %.0f%% of the %d rolled bytes, pages"
                + " reclaimed after their warm-up): %s", RECLAIMED_SHARE * 100, rolledBytes,
                network.stream().filter(ShimCall::delayed).toList())
            .isLessThanOrEqualTo((long) (RECLAIMED_SHARE * rolledBytes));
    }

    /** The control: without prefetch the network threads read more cold bytes than a reclaim would leave. */
    static void assertColdOnNetwork(List<ShimCall> network, List<Path> rolled) throws Exception {
        long rolledBytes = 0;
        for (Path segment : rolled) {
            rolledBytes += Files.size(segment);
        }
        assertThat(network.stream().mapToLong(ShimCall::coldBytes).sum()).as("cold bytes the network threads read")
            .isGreaterThan((long) (RECLAIMED_SHARE * rolledBytes));
    }
}
