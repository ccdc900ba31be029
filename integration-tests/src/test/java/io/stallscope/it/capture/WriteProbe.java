package io.stallscope.it.capture;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Runs under the shim in a child JVM: writes through FileChannel (as Kafka's FileRecords.append does)
 * to a matching and a non-matching file, armed and not, and prints "name millis" per call.
 */
public final class WriteProbe {
    private WriteProbe() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path trigger = Path.of(args[1]);
        try (FileChannel log = open(dir.resolve("00000000000000000000.log"));
             FileChannel other = open(dir.resolve("other.txt"))) {
            time("write_unarmed_match", () -> log.write(buf()));
            Files.write(trigger, new byte[0]);
            time("write_armed_other", () -> other.write(buf()));
            time("write_armed_match", () -> log.write(buf()));
            time("write_after_match", () -> log.write(buf()));
            Files.write(trigger, new byte[0]);
            time("pwrite_armed_match", () -> log.write(buf(), 0));
            Files.write(trigger, new byte[0]);
            time("writev_armed_match", () -> log.write(new ByteBuffer[] {buf(), buf()}));
            System.out.println("trigger_left " + (Files.exists(trigger) ? 1 : 0));
        }
    }

    private static FileChannel open(Path p) throws Exception {
        return FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    private static ByteBuffer buf() {
        return ByteBuffer.wrap(new byte[4096]);
    }

    private interface Call {
        void run() throws Exception;
    }

    private static void time(String name, Call call) throws Exception {
        long t0 = System.nanoTime();
        call.run();
        System.out.println(name + " " + (System.nanoTime() - t0) / 1_000_000);
    }
}
