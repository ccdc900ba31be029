package io.stallscope.it.mitigate;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How long the threads a produce request passes through waited for a CPU while runnable (the kernel's
 * per-thread run-queue wait, /proc/PID/task/TID/schedstat, second field), sampled every few ms over the
 * measured window: the broker's network and request-handler threads ("data-plane-kafka-...") and this
 * JVM's producer threads (the sender "kafka-producer-network-thread" and the "latency-producer"). On two
 * cores shared by the broker, the producer and whatever else runs, a record can wait for a CPU at every
 * hop without either JVM stopping; this says how much it did. Sampling costs a few file reads every
 * {@link #PERIOD_MS} ms; a record's wait is read between the samples around its flight, so it may
 * include up to one period either side.
 */
final class RollSpikeRunQueue implements AutoCloseable {
    static final int PERIOD_MS = 5;

    /** Epoch ms (fractional) and the run-queue wait so far (ns) of the broker's and the producer's threads. */
    private record Sample(double atMillis, long brokerWaitNs, long producerWaitNs) {
    }

    private final List<Path> brokerThreads;
    private final List<Path> producerThreads;
    private final List<Sample> samples = new ArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    RollSpikeRunQueue(long brokerPid) {
        // the threads are found once (after the warm-up they are all there): each sample then reads only theirs
        this.brokerThreads = threads(Path.of("/proc/" + brokerPid + "/task"), "data-plane-kafk");
        this.producerThreads = threads(Path.of("/proc/self/task"), "kafka-producer-", "latency-produce");
        long originNanos = System.nanoTime();
        long originMillis = System.currentTimeMillis();
        this.thread = new Thread(() -> {
            while (running) {
                double at = originMillis + (System.nanoTime() - originNanos) / 1e6;
                Sample s = new Sample(at, waitNs(brokerThreads), waitNs(producerThreads));
                synchronized (samples) {
                    samples.add(s);
                }
                try {
                    Thread.sleep(PERIOD_MS);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "run-queue-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    /** Run-queue wait (ms) of the broker's and the producer's threads in [from, to] (epoch ms), widened to the samples around it. */
    double[] waitedMs(double from, double to) {
        Sample before = null;
        Sample after = null;
        synchronized (samples) {
            for (Sample s : samples) {
                if (s.atMillis() <= from) {
                    before = s;
                }
                if (s.atMillis() >= to) {
                    after = s;
                    break;
                }
            }
        }
        if (before == null || after == null) {
            return new double[] {Double.NaN, Double.NaN};
        }
        return new double[] {(after.brokerWaitNs() - before.brokerWaitNs()) / 1e6,
            (after.producerWaitNs() - before.producerWaitNs()) / 1e6};
    }

    /** How many threads of the broker's produce path and of the producer are sampled. */
    String threads() {
        return brokerThreads.size() + " / " + producerThreads.size();
    }

    /** The schedstat files of the process's threads whose name starts with one of the prefixes. */
    private static List<Path> threads(Path tasks, String... prefixes) {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tasks)) {
            for (Path task : ds) {
                try {
                    String comm = Files.readString(task.resolve("comm"));
                    for (String p : prefixes) {
                        if (comm.startsWith(p)) {
                            found.add(task.resolve("schedstat"));
                            break;
                        }
                    }
                } catch (IOException e) {
                    // the thread ended between the listing and the read
                }
            }
        } catch (IOException e) {
            return found;
        }
        return found;
    }

    /** Run-queue wait so far (ns) summed over the threads (second field of schedstat). */
    private static long waitNs(List<Path> threads) {
        long sum = 0;
        for (Path schedstat : threads) {
            try {
                sum += Long.parseLong(Files.readString(schedstat).trim().split(" ")[1]);
            } catch (IOException | RuntimeException e) {
                // the thread ended
            }
        }
        return sum;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(1000);
    }
}
