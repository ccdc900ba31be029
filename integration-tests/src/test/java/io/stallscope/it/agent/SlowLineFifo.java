package io.stallscope.it.agent;

import io.stallscope.it.broker.KafkaVersion;
import io.stallscope.it.broker.LoggingConfigs;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A named pipe that the broker's "stallscope" logger writes to, read at a trickle: once its 64 KiB are full,
 * every line the agent logs blocks its writer in write(2) for as long as the reader takes to make room, as a
 * server.log on a stalled disk would. The broker's own loggers keep their file. Linux only (mkfifo).
 */
final class SlowLineFifo implements AutoCloseable {
    private final Path path;
    private final Thread reader;
    private final AtomicLong lines = new AtomicLong();
    private volatile int bytesPerSecond;

    private SlowLineFifo(Path path, int bytesPerSecond) {
        this.path = path;
        this.bytesPerSecond = bytesPerSecond;
        this.reader = new Thread(this::read, "slow-line-fifo-reader");
        reader.setDaemon(true);
    }

    /** Makes the pipe and starts reading it at bytesPerSecond (0: as fast as lines come). */
    static SlowLineFifo create(Path path, int bytesPerSecond) throws IOException, InterruptedException {
        Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).redirectErrorStream(true).start();
        if (!mkfifo.waitFor(10, TimeUnit.SECONDS) || mkfifo.exitValue() != 0) {
            throw new IOException("mkfifo " + path + " failed: " + new String(mkfifo.getInputStream().readAllBytes()));
        }
        SlowLineFifo fifo = new SlowLineFifo(path, bytesPerSecond);
        fifo.reader.start();
        return fifo;
    }

    long lines() {
        return lines.get();
    }

    /** Reads as fast as lines come from now on: a broker's stop must not wait for the trickle. */
    void drain() {
        bytesPerSecond = 0;
        reader.interrupt(); // out of its sleep
    }

    /**
     * The broker's log config with the "stallscope" logger also appending to this pipe (log4j 1.x or log4j2, by
     * version). Its lines still reach broker.log too, through the root logger.
     */
    String logConfig(KafkaVersion version, Path brokerLog) {
        String base = LoggingConfigs.toFile(version, brokerLog, "INFO");
        if (version.usesLog4j2()) {
            return base + """
                appender.slow.type = File
                appender.slow.name = SLOW
                appender.slow.fileName = %s
                appender.slow.append = true
                appender.slow.immediateFlush = true
                appender.slow.bufferedIo = false
                appender.slow.layout.type = PatternLayout
                appender.slow.layout.pattern = %s
                logger.stallscope.name = stallscope
                logger.stallscope.level = info
                logger.stallscope.appenderRef.slow.ref = SLOW
                """.formatted(path, LoggingConfigs.LOG4J2_PATTERN);
        }
        return base + """
            log4j.logger.stallscope=INFO, slow
            log4j.appender.slow=org.apache.log4j.FileAppender
            log4j.appender.slow.File=%s
            log4j.appender.slow.Append=true
            log4j.appender.slow.layout=org.apache.log4j.PatternLayout
            log4j.appender.slow.layout.ConversionPattern=%s
            """.formatted(path, LoggingConfigs.LOG4J1_PATTERN);
    }

    private void read() {
        byte[] buf = new byte[65536];
        // blocks until the broker's appender opens the pipe; ends when the broker's JVM closes it
        try (InputStream in = new FileInputStream(path.toFile())) {
            while (true) {
                int rate = bytesPerSecond;
                int n = in.read(buf, 0, rate > 0 ? Math.min(rate, buf.length) : buf.length);
                if (n < 0) {
                    return;
                }
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        lines.incrementAndGet();
                    }
                }
                if (bytesPerSecond > 0) {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        // drain() asked for full speed
                    }
                }
            }
        } catch (IOException e) {
            // the pipe went away with its test
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        drain();
        if (reader.isAlive()) {
            // a reader still blocked in open() (the broker never opened its end) gets a writer and then EOF; on a
            // daemon thread, since that open blocks in turn if the reader ended meanwhile
            Thread unblock = new Thread(() -> {
                try (FileOutputStream out = new FileOutputStream(path.toFile())) {
                    out.flush();
                } catch (IOException e) {
                    // nothing to unblock
                }
            }, "slow-line-fifo-unblock");
            unblock.setDaemon(true);
            unblock.start();
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        Files.deleteIfExists(path);
    }
}
