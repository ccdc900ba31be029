package io.stallscope.agent.capture;

import one.profiler.AsyncProfiler;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * Loads async-profiler's native library at most once per JVM. The agent's classes stay loaded after a
 * detach, so a second attach finds the instance here. If a library of that name is already mapped into
 * the process (the broker runs async-profiler itself, -agentpath or another copy of its jar) and our
 * class is not bound to it, a second copy is never loaded: two profilers would fight over signals.
 * The library is extracted into a fresh 0700 directory (not straight into a shared temp dir, where
 * another user could swap the file between write and load) and deleted once mapped.
 */
final class ProfilerLibrary {
    private static AsyncProfiler instance;
    private static String failure;

    private ProfilerLibrary() {
    }

    /** The profiler, or throws with a one-line reason why it cannot be used here. */
    static synchronized AsyncProfiler load() throws ProfilerUnavailableException {
        if (instance != null) {
            return instance;
        }
        if (failure != null) {
            throw new ProfilerUnavailableException(failure);
        }
        try {
            instance = loadOnce();
            return instance;
        } catch (ProfilerUnavailableException e) {
            failure = e.getMessage();
            throw e;
        }
    }

    private static AsyncProfiler loadOnce() throws ProfilerUnavailableException {
        String resource = resource();
        String mapped = mappedLibrary();
        if (mapped != null) {
            if (boundAlready()) {
                return AsyncProfiler.getInstance(); // finds the bound library, extracts nothing
            }
            throw new ProfilerUnavailableException("another async-profiler is already loaded in this JVM ("
                + mapped + "); not loading a second copy");
        }
        Path dir = null;
        Path lib = null;
        try (InputStream in = AsyncProfiler.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new ProfilerUnavailableException("no " + resource + " in the agent jar");
            }
            dir = Files.createTempDirectory(Paths.get(System.getProperty("java.io.tmpdir")), "stallscope-ap-",
                CaptureDir.privateDir());
            lib = dir.resolve("libasyncProfiler.so");
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            return AsyncProfiler.getInstance(lib.toString());
        } catch (IOException | RuntimeException e) {
            throw new ProfilerUnavailableException("cannot extract the async-profiler library into "
                + System.getProperty("java.io.tmpdir") + " (" + e + ")");
        } catch (UnsatisfiedLinkError e) {
            throw new ProfilerUnavailableException("cannot load the async-profiler library (" + e.getMessage()
                + "; a noexec temp dir or another C library?)");
        } finally {
            deleteQuietly(lib);
            deleteQuietly(dir);
        }
    }

    private static String resource() throws ProfilerUnavailableException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64"))) {
            return "/linux-x64/libasyncProfiler.so";
        }
        if (os.contains("linux") && arch.equals("aarch64")) {
            return "/linux-arm64/libasyncProfiler.so";
        }
        throw new ProfilerUnavailableException("no async-profiler library for " + os + "/" + arch);
    }

    /** A libasyncProfiler already mapped into this process, or null. */
    private static String mappedLibrary() {
        try {
            List<String> maps = Files.readAllLines(Paths.get("/proc/self/maps"));
            for (String line : maps) {
                int slash = line.indexOf('/');
                if (slash >= 0 && line.contains("libasyncProfiler")) {
                    return line.substring(slash);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // no /proc: nothing known to be mapped
        }
        return null;
    }

    /** Whether our AsyncProfiler class can already call into a loaded library (ours, from an earlier attach). */
    private static boolean boundAlready() {
        try {
            Constructor<AsyncProfiler> c = AsyncProfiler.class.getDeclaredConstructor();
            c.setAccessible(true);
            c.newInstance().getVersion();
            return true;
        } catch (UnsatisfiedLinkError | ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // a leftover private directory is harmless
            }
        }
    }
}
