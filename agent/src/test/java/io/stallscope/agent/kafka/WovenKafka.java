package io.stallscope.agent.kafka;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.scaffold.TypeValidation;
import net.bytebuddy.pool.TypePool;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One Kafka version's own classes (target/kafka-jars/VERSION) in a class loader of their own, some of them woven with
 * the agent's advice as its transformer weaves them; the agent's classes, which woven advice calls, come from the
 * test's class loader, as the system class loader serves them to a broker.
 */
public final class WovenKafka implements AutoCloseable {
    private final URLClassLoader loader;

    private WovenKafka(URL[] urls, Map<String, byte[]> woven) {
        this.loader = new WovenLoader(urls, woven);
    }

    /**
     * kafka-clients, and with {@code storage} kafka-storage and server-common (3.7+: LogSegment, LogConfig; 3.9.2+:
     * AbstractIndex's remap lock), of this version; {@code woven}: class name to class file, defined from those bytes.
     */
    public static WovenKafka of(String version, boolean storage, Map<String, byte[]> woven) throws IOException {
        return of(version, storage, woven, new Path[0]);
    }

    /**
     * As {@link #of(String, boolean, Map)}, with kafka-storage-api where the build fetched it (3.5+: the tiered-storage
     * plugin's interface) and these jars after Kafka's (a test jar: LocalTieredStorage).
     */
    public static WovenKafka of(String version, boolean storage, Map<String, byte[]> woven, Path... more)
        throws IOException {
        Path jars = KafkaJars.root().resolve(version);
        List<URL> urls = new ArrayList<>();
        urls.add(jars.resolve("kafka-clients-" + version + ".jar").toUri().toURL());
        // kafka-clients logs through slf4j (Utils): the test's slf4j-api and binding, nothing else of its class path
        urls.add(codeSource(org.slf4j.Logger.class));
        urls.add(codeSource(org.slf4j.LoggerFactory.getILoggerFactory().getClass()));
        if (storage) {
            urls.add(jars.resolve("kafka-storage-" + version + ".jar").toUri().toURL());
            urls.add(jars.resolve("kafka-server-common-" + version + ".jar").toUri().toURL());
            urls.add(codeSource(com.yammer.metrics.core.MetricsRegistry.class));
            urls.add(codeSource(com.github.benmanes.caffeine.cache.Caffeine.class)); // RemoteIndexCache's
            Path api = jars.resolve("kafka-storage-api-" + version + ".jar");
            if (Files.isRegularFile(api)) {
                urls.add(api.toUri().toURL());
            }
        }
        for (Path jar : more) {
            urls.add(jar.toUri().toURL());
        }
        return new WovenKafka(urls.toArray(new URL[0]), woven);
    }

    /**
     * As {@link #of(String, boolean, Map)} with storage, and the broker's own jar (kafka_2.13) with what its classes
     * need to load ({@link #brokerDeps}: kafka.server.DelayedRemoteFetch up to 4.1; 3.6-4.0's RemoteLogManager).
     */
    public static WovenKafka withBroker(String version, Map<String, byte[]> woven) throws IOException {
        List<Path> more = new ArrayList<>();
        more.add(KafkaJars.root().resolve(version).resolve("kafka_2.13-" + version + ".jar"));
        more.addAll(brokerDeps());
        return of(version, true, woven, more.toArray(new Path[0]));
    }

    /**
     * scala-library, scala-logging and commons-validator (3.9's CoreUtils), as the build copied them into
     * target/kafka-test-jars/broker-deps. Not log4j: a Scala class's constructor that registers Kafka's log4j controller
     * (the Logging trait's, from 4.0 through kafka-server's LoggingController) is not run.
     */
    static List<Path> brokerDeps() throws IOException {
        Path dir = testJars().resolve("broker-deps");
        try (java.util.stream.Stream<Path> jars = Files.list(dir)) {
            List<Path> found = new ArrayList<>();
            jars.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().forEach(found::add);
            if (found.size() < 3) {
                throw new IllegalStateException("no scala-library, scala-logging and commons-validator in " + dir
                    + ": add them to the agent's pom (kafka-test-jars)");
            }
            return found;
        }
    }

    private static Path testJars() {
        return java.nio.file.Paths.get(System.getProperty("stallscope.kafka.test.jars", "target/kafka-test-jars"));
    }

    /** The version's kafka-storage test jar (LocalTieredStorage), as the build copied it into target/kafka-test-jars. */
    public static Path storageTestJar(String version) throws IOException {
        Path dir = testJars().resolve(version);
        try (java.util.stream.Stream<Path> jars = Files.list(dir)) {
            return jars.filter(p -> p.getFileName().toString().startsWith("kafka-storage-" + version + "-test"))
                .findFirst().orElseThrow(() -> new IllegalStateException("no kafka-storage test jar of " + version
                    + " in " + dir + ": add it to the agent's pom (kafka-test-jars)"));
        }
    }

    /**
     * The version's class (from kafka-storage, server-common, kafka-clients, kafka-storage-api or the broker's
     * kafka_2.13) with these visitors, as the agent's transformer weaves it; the types its methods name may come from the
     * version's test jars and {@link #brokerDeps} too.
     */
    public static byte[] weave(String version, String className, AsmVisitorWrapper... visitors) throws IOException {
        Path jars = KafkaJars.root().resolve(version);
        List<ClassFileLocator> locators = new ArrayList<>();
        for (String jar : new String[] {"kafka-storage", "kafka-server-common", "kafka-clients", "kafka-storage-api",
            "kafka_2.13"}) {
            Path file = jars.resolve(jar + "-" + version + ".jar");
            if (Files.isRegularFile(file)) {
                locators.add(ClassFileLocator.ForJarFile.of(file.toFile()));
            }
        }
        if (Files.isDirectory(testJars().resolve(version))) {
            try (java.util.stream.Stream<Path> more = Files.list(testJars().resolve(version))) {
                for (Path jar : (Iterable<Path>) more.filter(p -> p.toString().endsWith(".jar")).sorted()::iterator) {
                    locators.add(ClassFileLocator.ForJarFile.of(jar.toFile())); // e.g. 4.1's kafka-server
                }
            }
        }
        if (Files.isDirectory(testJars().resolve("broker-deps"))) {
            for (Path jar : brokerDeps()) { // the Scala types a Scala class's methods name
                locators.add(ClassFileLocator.ForJarFile.of(jar.toFile()));
            }
        }
        locators.add(ClassFileLocator.ForClassLoader.ofPlatformLoader());
        locators.add(ClassFileLocator.ForClassLoader.of(WovenKafka.class.getClassLoader()));
        ClassFileLocator locator = new ClassFileLocator.Compound(locators);
        try {
            DynamicType.Builder<?> builder = new ByteBuddy().with(TypeValidation.DISABLED)
                .redefine(TypePool.Default.of(locator).describe(className).resolve(), locator);
            for (AsmVisitorWrapper visitor : visitors) {
                builder = builder.visit(visitor);
            }
            return builder.make().getBytes();
        } finally {
            locator.close();
        }
    }

    public Class<?> kafkaClass(String name) throws ClassNotFoundException {
        return loader.loadClass(name);
    }

    @Override
    public void close() throws IOException {
        loader.close();
    }

    private static URL codeSource(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }

    private static final class WovenLoader extends URLClassLoader {
        private final Map<String, byte[]> woven;

        WovenLoader(URL[] urls, Map<String, byte[]> woven) {
            super(urls, ClassLoader.getPlatformClassLoader());
            this.woven = woven;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.stallscope.")) {
                return WovenKafka.class.getClassLoader().loadClass(name);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && woven.containsKey(name)) {
                    byte[] bytes = woven.get(name);
                    c = defineClass(name, bytes, 0, bytes.length);
                }
                return c != null ? c : super.loadClass(name, resolve);
            }
        }
    }
}
