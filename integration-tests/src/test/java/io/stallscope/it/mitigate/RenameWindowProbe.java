package io.stallscope.it.mitigate;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Runs in a child JVM under the shim's rename-window settings (SlowDiskRenameWindowTest): a thread named
 * "held" fsyncs a gated file (it must wait for the rename), a thread named "mover" renames x-future to x (it
 * must return late), and the main thread opens a file under the old name inside the window (ENOENT logged)
 * and one that exists (not logged). Prints "step millis" per step. Args: work directory.
 */
public final class RenameWindowProbe {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path future = Files.createDirectories(dir.resolve("x-future"));
        Path snapshot = Files.write(future.resolve("00000000000000000010.snapshot"), new byte[16]);
        Path other = Files.write(dir.resolve("00000000000000000020.snapshot"), new byte[16]);
        long[] heldMs = new long[1];
        Thread held = new Thread(() -> {
            long start = System.nanoTime();
            try (FileChannel c = FileChannel.open(future.resolve("00000000000000000000.log"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                c.force(true);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            heldMs[0] = (System.nanoTime() - start) / 1_000_000;
        }, "held");
        held.start();
        Thread.sleep(300);
        long[] renameMs = new long[1];
        Thread mover = new Thread(() -> {
            long start = System.nanoTime();
            try {
                Files.move(future, dir.resolve("x"), StandardCopyOption.ATOMIC_MOVE);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            renameMs[0] = (System.nanoTime() - start) / 1_000_000;
        }, "mover");
        mover.start();
        held.join();
        boolean missing = false;
        try {
            FileChannel.open(snapshot, StandardOpenOption.READ).close(); // inside the window: moved away
        } catch (NoSuchFileException e) {
            missing = true;
        }
        FileChannel.open(other, StandardOpenOption.READ).close();
        mover.join();
        System.out.println("held " + heldMs[0]);
        System.out.println("rename " + renameMs[0]);
        System.out.println("missing " + (missing ? 1 : 0));
    }
}
