package io.stallscope.it.mitigate;

import io.stallscope.it.slowdisk.PageCache;
import io.stallscope.it.slowdisk.ShimCall;
import io.stallscope.it.slowdisk.SlowDisk;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.groups.Tuple.tuple;

/**
 * The simulated slow disk itself, no Kafka: a child JVM under the LD_PRELOAD shim does each call on a
 * file matching the shim's patterns and on one that does not, cold and warm. Only matching fsyncs and
 * matching reads of pages not in the page cache may be delayed; everything else runs at the real
 * disk's speed. Eviction and residency are checked with mincore through the pagecache tool. A call the
 * shim delays takes at least DELAY_MS, so one that took less was not delayed: the bound is not tighter
 * because a loaded machine stretches real calls too (a warm read took 326 ms at load average 22).
 */
class SlowDiskShimTest {
    private static final long DELAY_MS = 300;
    private static final long SEEK_MS = 10;
    private static final double MS_PER_MIB = 100;
    private static Map<String, Long> millis;
    private static List<ShimCall> calls;

    @BeforeAll
    static void runProbe(@TempDir Path dir) throws Exception {
        SlowDisk disk = SlowDisk.logTo(dir.resolve("shim.log"))
            .slowFsync("\\.slow$", Duration.ofMillis(DELAY_MS))
            .slowColdReads("\\.slow$", Duration.ofMillis(DELAY_MS), Duration.ofMillis(SEEK_MS), MS_PER_MIB);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path testClasses = Path.of(System.getProperty("stallscope.it.target", "target"), "test-classes");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", testClasses.toString(),
            SlowDiskProbe.class.getName(), dir.toString(), SlowDisk.nativeDir().resolve("pagecache").toString());
        pb.environment().putAll(disk.env());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        millis = new HashMap<>();
        out.lines().map(l -> l.split(" ")).filter(f -> f.length == 2 && f[1].matches("\\d+"))
            .forEach(f -> millis.put(f[0], Long.parseLong(f[1])));
        calls = disk.calls();
    }

    @Test
    void delaysFsyncAndFdatasyncOfMatchingFilesOnly() {
        assertThat(millis.get("fsync_match")).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(millis.get("fdatasync_match")).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(millis.get("fsync_other")).isLessThan(DELAY_MS);
        assertThat(calls).filteredOn(c -> c.call().equals("fsync")).hasSize(1)
            .allMatch(c -> c.path().endsWith("data.slow"));
        assertThat(calls).filteredOn(c -> c.call().equals("fdatasync")).hasSize(1);
    }

    @Test
    void delaysColdReadsOnlyWhilePagesAreNotResident() {
        assertThat(millis.get("pread_cold_match")).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(millis.get("pread_warm_match")).isLessThan(DELAY_MS);
        assertThat(millis.get("pread_cold_other")).isLessThan(DELAY_MS);
        assertThat(millis.get("sendfile_cold_match")).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(millis.get("sendfile_warm_match")).isLessThan(DELAY_MS);

        List<ShimCall> reads = new ArrayList<>(calls);
        reads.removeIf(c -> !c.call().equals("pread") && !c.call().equals("sendfile"));
        assertThat(reads.subList(0, 4)).extracting(ShimCall::call, ShimCall::delayed)
            .containsExactly(tuple("pread", true), tuple("pread", false),
                tuple("sendfile", true), tuple("sendfile", false));
        // the cold sendfile saw the whole MiB missing; the cold pread only its 64 KiB
        assertThat(reads.get(2).coldBytes()).isEqualTo(1024 * 1024);
        assertThat(reads.get(0).coldBytes()).isEqualTo(64 * 1024);
        assertThat(reads).allMatch(c -> c.path().endsWith("data.slow"));
    }

    @Test
    void chargesPerCallPerExtentAndPerColdMib() {
        List<ShimCall> reads = new ArrayList<>(calls);
        reads.removeIf(c -> !c.call().equals("pread") && !c.call().equals("sendfile"));
        // one extent each: 1 MiB sendfile, 64 KiB pread
        assertThat(reads.get(2).delayMs()).isEqualTo(DELAY_MS + SEEK_MS + MS_PER_MIB, within(0.01));
        assertThat(reads.get(0).delayMs()).isEqualTo(DELAY_MS + SEEK_MS + MS_PER_MIB / 16, within(0.01));
        // pages 0-1 and 3 cold, page 2 resident: two seeks, 12 KiB
        ShimCall extents = reads.get(reads.size() - 1);
        assertThat(extents.coldBytes()).isEqualTo(12 * 1024);
        assertThat(extents.delayMs()).isEqualTo(DELAY_MS + 2 * SEEK_MS + MS_PER_MIB * 12 / 1024, within(0.01));
    }

    @Test
    void readaheadIsOffForMatchingFiles() {
        // without POSIX_FADV_RANDOM the kernel would read the next 64 KiB ahead with the first
        assertThat(millis.get("pread_first_match")).isGreaterThanOrEqualTo(DELAY_MS);
        assertThat(millis.get("pread_next_match")).isGreaterThanOrEqualTo(DELAY_MS);
        List<ShimCall> reads = new ArrayList<>(calls);
        reads.removeIf(c -> !c.call().equals("pread"));
        assertThat(reads.get(reads.size() - 3).coldBytes()).as("the second 64 KiB").isEqualTo(64 * 1024);
    }

    @Test
    void evictionEmptiesThePageCacheAndReadingFillsIt(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pages.bin");
        Files.write(file, new byte[4 * 1024 * 1024]);
        PageCache.evict(List.of(file));
        assertThat(PageCache.residentFraction(List.of(file))).isLessThan(0.1);
        Files.readAllBytes(file);
        assertThat(PageCache.residentFraction(List.of(file))).isEqualTo(1.0);
    }
}
