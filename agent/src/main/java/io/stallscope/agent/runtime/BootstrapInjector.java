package io.stallscope.agent.runtime;

import net.bytebuddy.dynamic.loading.ClassInjector;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Puts the hook classes on the bootstrap class path so that advice inlined into JDK classes can call
 * them, and lets java.base read their module. Must run before anything touches those classes:
 * loaded first by the system class loader they could not be seen from java.base.
 */
final class BootstrapInjector {
    private static final String PACKAGE = "io.stallscope.agent.bootstrap.";
    private static final String[] CLASSES = {"Op", "OpSink", "OpTrace", "ThreadState", "ThreadRegistry", "HookSession", "Hooks",
        "SubjectWith", "QueuedTasks"};

    private BootstrapInjector() {
    }

    /** Returns null when done (or done by an earlier attach), else why not. */
    static String inject(Instrumentation inst) {
        try {
            if (!alreadyOnBootstrap()) {
                Map<String, byte[]> classes = new LinkedHashMap<>();
                for (String simple : CLASSES) {
                    classes.put(PACKAGE + simple, bytes(PACKAGE + simple));
                }
                Path folder = Files.createTempDirectory("stallscope-bootstrap");
                folder.toFile().deleteOnExit();
                ClassInjector.UsingInstrumentation
                    .of(folder.toFile(), ClassInjector.UsingInstrumentation.Target.BOOTSTRAP, inst)
                    .injectRaw(classes);
            }
            Class<?> hooks = Class.forName(PACKAGE + "Hooks", false, null);
            Module javaBase = Object.class.getModule();
            inst.redefineModule(javaBase, Set.of(hooks.getModule()), Collections.emptyMap(),
                Map.of("sun.nio.ch", Set.of(BootstrapInjector.class.getModule())), Collections.emptySet(),
                Collections.emptyMap());
            return null;
        } catch (Throwable t) {
            return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        }
    }

    private static boolean alreadyOnBootstrap() {
        try {
            Class.forName(PACKAGE + "Hooks", false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static byte[] bytes(String className) throws IOException {
        String resource = className.replace('.', '/') + ".class";
        try (InputStream in = BootstrapInjector.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("missing " + resource + " in the agent jar");
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        }
    }
}
