package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.stacks.IoOp;
import io.stallscope.analyzer.model.IoEvents;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The per-thread activity finding takes a thread's fsync and file-read events by their type's number: the same
 * events, in the same order, as going through every event and naming its call by the type's name.
 */
class FindingIoEventsTest {
    @Test
    void eventsByTypeNumberAreThoseByTypeName() {
        Random random = new Random(5);
        String[] types = {"FileWrite", "FileRead", "FileForce", "SocketRead", "SocketWrite"};
        IoEvents io = new IoEvents();
        int threads = 9;
        for (int i = 0; i < 20_000; i++) {
            long start = random.nextInt(1_000_000);
            io.add(types[random.nextInt(types.length)], start, start + random.nextInt(10_000), random.nextInt(threads + 2) - 1, 0, null, 0);
        }
        IoOp[] opOfType = new IoOp[io.typeCount()];
        for (int k = 0; k < opOfType.length; k++) opOfType[k] = FindingDetector.eventOp(io.typeName(k));
        long from = 200_000;
        long to = 700_000;
        int[][] byThread = FindingDetector.ioInView(io, threads, from, to, opOfType);
        for (int t = 0; t < threads; t++) {
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < io.size(); i++) {
                String type = io.type(i);
                IoOp op = type.equals("FileForce") ? IoOp.FSYNC : type.equals("FileRead") ? IoOp.FILE_READ
                        : type.equals("FileWrite") ? IoOp.WRITE : IoOp.SOCKET;
                if (io.thread(i) == t && io.end(i) >= from && io.start(i) <= to && (op == IoOp.FSYNC || op == IoOp.FILE_READ)) expected.add(i);
            }
            List<Integer> got = new ArrayList<>();
            if (byThread[t] != null) for (int i : byThread[t]) got.add(i);
            assertThat(got).as("thread %d", t).isEqualTo(expected);
            assertThat(byThread[t] == null).isEqualTo(expected.isEmpty());
        }
    }
}
