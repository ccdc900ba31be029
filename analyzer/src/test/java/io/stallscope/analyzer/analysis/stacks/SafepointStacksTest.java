package io.stallscope.analyzer.analysis.stacks;

import io.stallscope.analyzer.model.Frames;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.Stacks;
import io.stallscope.analyzer.read.JfrFileReader;
import io.stallscope.analyzer.workload.Recorder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.stallscope.analyzer.analysis.stacks.SafepointStacks.Doing.INDEX_READ;
import static io.stallscope.analyzer.analysis.stacks.SafepointStacks.Doing.PAGE_FAULT;
import static io.stallscope.analyzer.analysis.stacks.SafepointStacks.Doing.RUNNING;
import static io.stallscope.analyzer.analysis.stacks.SafepointStacks.Doing.SAFE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a stack sampled during a sync says its thread did. The page-fault rule is checked on real kernel stacks
 * (async-profiler's CPU samples of {@code PageFaultProgram} reading a mapped file), where this machine gives a
 * profiler kernel frames; a slow fault needs a slow disk, which the main team's integration test has. The Kafka
 * index frames are checked on stacks written out frame by frame, named as Kafka 3.x and 4.x name them (the analyzer
 * module cannot run a broker); the kernel frames in those are the ones the real recording shows.
 */
class SafepointStacksTest {
    /** A stack written top frame first: "k:" a kernel frame, "n:" a native one, the rest Java. */
    private static SafepointStacks.Doing doing(String... frames) {
        Frames f = new Frames();
        Stacks s = new Stacks();
        int[] ids = new int[frames.length];
        for (int i = 0; i < frames.length; i++) {
            String n = frames[i];
            boolean java = !n.startsWith("k:") && !n.startsWith("n:");
            ids[i] = f.intern(java ? n : n.substring(2), 0, java);
        }
        int stack = s.intern(ids);
        return new SafepointStacks(f, s).doing(stack);
    }

    @Test
    void aFaultInAnIndexReadIsAPageFaultAndWithoutKernelFramesAnIndexRead() {
        // Kafka 4's index, read through a mapped buffer, the kernel in the fault (as the CPU recording shows it).
        assertThat(doing("k:filemap_fault", "k:__do_fault", "k:handle_mm_fault", "k:exc_page_fault", "k:asm_exc_page_fault",
                "jdk.internal.misc.ScopedMemoryAccess.getIntInternal", "java.nio.DirectByteBuffer.getInt",
                "org.apache.kafka.storage.internals.log.OffsetIndex.relativeOffset",
                "org.apache.kafka.storage.internals.log.AbstractIndex.indexSlotRangeFor")).isEqualTo(PAGE_FAULT);
        // The same read sampled with no kernel frames (a wall-clock profiler, a JDK recording).
        assertThat(doing("java.nio.DirectByteBuffer.getInt", "kafka.log.OffsetIndex.relativeOffset", "kafka.log.OffsetIndex.lookup"))
                .isEqualTo(INDEX_READ);
        assertThat(doing("kafka.log.TimeIndex.timestamp", "kafka.log.TimeIndex.lookup")).isEqualTo(INDEX_READ);
        // A fault anywhere else in Java code still holds a safepoint up.
        assertThat(doing("k:asm_exc_page_fault", "com.example.Cache.get")).isEqualTo(PAGE_FAULT);
    }

    @Test
    void onlyAThreadInJavaCodeCanHoldASafepointUp() {
        assertThat(doing("com.example.Loop.spin", "com.example.Loop.run")).isEqualTo(RUNNING);
        // A buffer read under something that is not an index is just running.
        assertThat(doing("java.nio.DirectByteBuffer.getInt", "com.example.Codec.decode")).isEqualTo(RUNNING);
        // Stopped at the safepoint (as async-profiler shows a stopped thread), in a system call, in the VM.
        assertThat(doing("n:syscall", "n:LinuxWaitBarrier::wait", "n:SafepointSynchronize::block", "n:SafepointMechanism::process",
                "java.lang.Object.wait")).isEqualTo(SAFE);
        assertThat(doing("n:__futex_abstimed_wait_common", "n:Unsafe_Park", "jdk.internal.misc.Unsafe.park")).isEqualTo(SAFE);
        assertThat(doing("n:write", "sun.nio.ch.FileDispatcherImpl.write0")).isEqualTo(SAFE);
        assertThat(doing("n:__clock_nanosleep", "n:SafepointSynchronize::synchronize_threads", "n:SafepointSynchronize::begin")).isEqualTo(SAFE);
        // A kernel fault under no Java frame (a GC thread touching the heap) holds no safepoint up.
        assertThat(doing("k:asm_exc_page_fault", "n:G1ParScanThreadState::trim_queue")).isEqualTo(SAFE);
    }

    @Test
    void realKernelPageFaultStacksAreClassifiedAsPageFaults() throws Exception {
        Recording rec = new Recording();
        JfrFileReader.read(Recorder.pageFaults(), rec, null);
        SafepointStacks stacks = new SafepointStacks(rec.frames, rec.stacks);
        List<Integer> faults = new ArrayList<>();
        for (int i = 1; i < rec.stacks.size(); i++) {
            int[] f = rec.stacks.frames(i);
            boolean kernelFault = false;
            boolean java = false;
            for (int id : f) {
                kernelFault |= rec.frames.name(id).equals("asm_exc_page_fault") && !rec.frames.isJava(id);
                java |= rec.frames.isJava(id);
            }
            if (kernelFault && java) faults.add(i);
        }
        Assumptions.assumeFalse(faults.isEmpty(), "this machine gives async-profiler no kernel frames (perf_event_paranoid)");
        for (int stack : faults) {
            assertThat(stacks.doing(stack)).as(String.join(" <- ", names(rec, stack))).isEqualTo(PAGE_FAULT);
            // What it names is the Java frame the fault interrupted (a mapped buffer's read here: no index above it).
            assertThat(rec.frames.isJava(stacks.frame(stack))).isTrue();
        }
        assertThat(faults.stream().map(stacks::frame).map(rec.frames::name))
                .anyMatch(n -> n.startsWith("jdk.internal.misc.ScopedMemoryAccess.get") || n.startsWith("java.nio.") || n.contains("PageFaultProgram"));
    }

    private static List<String> names(Recording rec, int stack) {
        List<String> out = new ArrayList<>();
        for (int f : rec.stacks.frames(stack)) out.add(rec.frames.name(f));
        return out;
    }
}
