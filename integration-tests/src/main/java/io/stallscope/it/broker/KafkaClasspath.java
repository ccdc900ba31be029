package io.stallscope.it.broker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import org.apache.maven.repository.internal.MavenRepositorySystemUtils;
import org.eclipse.aether.DefaultRepositorySystemSession;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.artifact.Artifact;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.repository.LocalRepository;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.resolution.ArtifactResult;
import org.eclipse.aether.resolution.DependencyRequest;
import org.eclipse.aether.resolution.DependencyResolutionException;
import org.eclipse.aether.resolution.DependencyResult;
import org.eclipse.aether.supplier.RepositorySystemSupplier;
import org.eclipse.aether.util.artifact.JavaScopes;
import org.eclipse.aether.util.filter.DependencyFilterUtils;

/**
 * Resolves the runtime classpath of a Kafka broker of a given version ({@code kafka_2.13} plus
 * {@code kafka-tools}, plus an slf4j binding so the broker logs) with Maven Resolver, against Maven
 * Central and the local repository ({@code -Dmaven.repo.local} if set, else {@code ~/.m2/repository}).
 * The result is cached, one jar path per line, in {@code <target>/kafka-classpath/<version>.txt}.
 */
public final class KafkaClasspath {

    public static final String CENTRAL = "https://repo.maven.apache.org/maven2/";

    /**
     * Artifacts a broker does not need that are missing from Maven Central for some versions: for
     * 4.4.0, kafka-tools and kafka-tools-api (which the kafka_2.13 4.4.0 pom references) are absent.
     * Tools then come from an earlier version, see {@link #toolsVersion(KafkaVersion)}.
     */
    static final Set<String> OPTIONAL_IF_MISSING = Set.of("org.apache.kafka:kafka-tools-api", "org.apache.kafka:kafka-tools");

    private static final String LOG4J2_FALLBACK = "2.24.3";
    private static final Map<KafkaVersion, List<Path>> MEMO = new ConcurrentHashMap<>();

    private KafkaClasspath() {
    }

    /** The classpath for {@code version}, from the cache file if all its jars still exist, else resolved. */
    public static List<Path> of(KafkaVersion version) {
        return MEMO.computeIfAbsent(version, v -> {
            Path cache = HarnessDirs.target().resolve("kafka-classpath").resolve(v + ".txt");
            Optional<List<Path>> cached = readCache(cache);
            if (cached.isPresent()) {
                return cached.get();
            }
            List<Path> resolved = resolve(v);
            writeCache(cache, v, resolved);
            return resolved;
        });
    }

    /** True if the classpath of {@code version} holds kafka-tools of that same version. */
    public static boolean hasTools(KafkaVersion version) {
        String jar = "kafka-tools-" + version + ".jar";
        return of(version).stream().anyMatch(p -> p.getFileName().toString().equals(jar));
    }

    /**
     * The version whose {@code org.apache.kafka.tools} (ProducerPerformance...) to run next to a broker of
     * {@code version}: the same version if its kafka-tools is published, else the newest supported
     * earlier version that has it (4.4.0 -> 4.3.1).
     */
    public static KafkaVersion toolsVersion(KafkaVersion version) {
        if (hasTools(version)) {
            return version;
        }
        return KafkaVersions.SUPPORTED.stream()
                .filter(v -> v.compareTo(version) < 0)
                .sorted(java.util.Comparator.reverseOrder())
                .filter(KafkaClasspath::hasTools)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no kafka-tools for Kafka " + version + " or any earlier supported version"));
    }

    public static String asString(KafkaVersion version) {
        return of(version).stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator));
    }

    static Optional<List<Path>> readCache(Path cache) {
        if (!Files.isRegularFile(cache)) {
            return Optional.empty();
        }
        try {
            List<Path> jars = Files.readAllLines(cache).stream()
                    .map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .map(Path::of)
                    .toList();
            if (jars.isEmpty() || !jars.stream().allMatch(Files::isRegularFile)) {
                return Optional.empty();
            }
            return Optional.of(jars);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static void writeCache(Path cache, KafkaVersion v, List<Path> jars) {
        List<String> lines = new ArrayList<>();
        lines.add("# Kafka " + v + " broker classpath, resolved " + Instant.now() + " by " + KafkaClasspath.class.getName());
        jars.forEach(j -> lines.add(j.toString()));
        try {
            Files.createDirectories(cache.getParent());
            Path tmp = Files.createTempFile(cache.getParent(), v + "-", ".tmp");
            Files.write(tmp, lines);
            Files.move(tmp, cache, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write classpath cache " + cache, e);
        }
    }

    /** Resolves without the cache. */
    public static List<Path> resolve(KafkaVersion v) {
        RepositorySystem system = new RepositorySystemSupplier().get();
        try {
            DefaultRepositorySystemSession session = MavenRepositorySystemUtils.newSession();
            session.setSystemProperties(System.getProperties());
            LocalRepository local = new LocalRepository(localRepository().toFile());
            session.setLocalRepositoryManager(system.newLocalRepositoryManager(session, local));
            RemoteRepository central = new RemoteRepository.Builder("central", "default", CENTRAL).build();

            List<String> roots = new ArrayList<>(List.of(
                    "org.apache.kafka:kafka_2.13:" + v,
                    "org.apache.kafka:kafka-tools:" + v));
            Map<String, Artifact> first = resolveArtifacts(system, session, central, roots, v);
            roots.addAll(loggingBinding(v, first));
            Map<String, Artifact> all = resolveArtifacts(system, session, central, roots, v);
            return all.values().stream().map(a -> a.getFile().toPath().toAbsolutePath()).toList();
        } finally {
            system.shutdown();
        }
    }

    /**
     * One artifact's jar, without its dependencies, from the local repository or Maven Central, e.g.
     * {@code org.apache.kafka:kafka-storage:jar:test:3.9.2} (a test jar, for a plugin that ships in one).
     */
    public static Path jar(String coords) {
        RepositorySystem system = new RepositorySystemSupplier().get();
        try {
            DefaultRepositorySystemSession session = MavenRepositorySystemUtils.newSession();
            session.setSystemProperties(System.getProperties());
            session.setLocalRepositoryManager(system.newLocalRepositoryManager(session,
                    new LocalRepository(localRepository().toFile())));
            org.eclipse.aether.resolution.ArtifactRequest request = new org.eclipse.aether.resolution.ArtifactRequest(
                    new DefaultArtifact(coords), List.of(new RemoteRepository.Builder("central", "default", CENTRAL).build()), null);
            return system.resolveArtifact(session, request).getArtifact().getFile().toPath().toAbsolutePath();
        } catch (org.eclipse.aether.resolution.ArtifactResolutionException e) {
            throw new IllegalStateException("Cannot resolve " + coords + " from " + CENTRAL + " (local repository "
                    + localRepository() + "): " + e.getMessage(), e);
        } finally {
            system.shutdown();
        }
    }

    /**
     * The published poms of 2.8 - 3.x bring log4j 1.x / reload4j and its slf4j binding; 4.x brings
     * only log4j-api, so add log4j-core and the binding that matches its slf4j-api (1.7 or 2.x).
     */
    static List<String> loggingBinding(KafkaVersion v, Map<String, Artifact> resolved) {
        List<String> extra = new ArrayList<>();
        boolean hasBinding = resolved.keySet().stream().anyMatch(k ->
                k.endsWith(":slf4j-log4j12") || k.endsWith(":slf4j-reload4j")
                        || k.endsWith(":log4j-slf4j-impl") || k.endsWith(":log4j-slf4j2-impl"));
        if (!v.usesLog4j2()) {
            if (!hasBinding) {
                String slf4j = version(resolved, "org.slf4j:slf4j-api").orElse("1.7.36");
                extra.add("org.slf4j:slf4j-reload4j:" + slf4j);
            }
            return extra;
        }
        String log4j = version(resolved, "org.apache.logging.log4j:log4j-api").orElse(LOG4J2_FALLBACK);
        if (!resolved.containsKey("org.apache.logging.log4j:log4j-core")) {
            extra.add("org.apache.logging.log4j:log4j-core:" + log4j);
        }
        if (!hasBinding) {
            String slf4j = version(resolved, "org.slf4j:slf4j-api").orElse("1.7.36");
            boolean slf4j2 = !slf4j.startsWith("1.");
            extra.add("org.apache.logging.log4j:" + (slf4j2 ? "log4j-slf4j2-impl" : "log4j-slf4j-impl") + ":" + log4j);
        }
        return extra;
    }

    private static Optional<String> version(Map<String, Artifact> resolved, String key) {
        return Optional.ofNullable(resolved.get(key)).map(Artifact::getVersion);
    }

    private static Map<String, Artifact> resolveArtifacts(RepositorySystem system, DefaultRepositorySystemSession session,
                                                          RemoteRepository central, List<String> coords, KafkaVersion v) {
        CollectRequest collect = new CollectRequest();
        for (String c : coords) {
            collect.addDependency(new Dependency(new DefaultArtifact(c), JavaScopes.RUNTIME));
        }
        collect.addRepository(central);
        DependencyRequest request = new DependencyRequest(collect, DependencyFilterUtils.classpathFilter(JavaScopes.RUNTIME));
        List<ArtifactResult> results;
        try {
            DependencyResult result = system.resolveDependencies(session, request);
            results = result.getArtifactResults();
        } catch (DependencyResolutionException e) {
            DependencyResult partial = e.getResult();
            if (partial == null || partial.getArtifactResults() == null || partial.getArtifactResults().isEmpty()) {
                throw failure(v, coords, e);
            }
            List<ArtifactResult> missing = partial.getArtifactResults().stream().filter(r -> !r.isResolved()).toList();
            boolean tolerable = !missing.isEmpty() && missing.stream().allMatch(r ->
                    OPTIONAL_IF_MISSING.contains(r.getRequest().getArtifact().getGroupId() + ":" + r.getRequest().getArtifact().getArtifactId()));
            if (!tolerable) {
                throw failure(v, coords, e);
            }
            System.err.println("[stallscope-it] Kafka " + v + ": leaving out artifacts missing from Maven Central: "
                    + missing.stream().map(r -> r.getRequest().getArtifact().toString()).toList());
            results = partial.getArtifactResults();
        }
        Map<String, Artifact> byKey = new LinkedHashMap<>();
        for (ArtifactResult r : results) {
            if (r.isResolved() && r.getArtifact() != null && r.getArtifact().getFile() != null) {
                Artifact a = r.getArtifact();
                byKey.putIfAbsent(a.getGroupId() + ":" + a.getArtifactId(), a);
            }
        }
        return byKey;
    }

    private static IllegalStateException failure(KafkaVersion v, List<String> coords, Exception e) {
        return new IllegalStateException("Cannot resolve the Kafka " + v + " classpath " + coords + " from " + CENTRAL
                + " (local repository " + localRepository() + "): " + e.getMessage(), e);
    }

    /** {@code -Dmaven.repo.local} if set, else {@code ~/.m2/repository}. */
    public static Path localRepository() {
        String prop = System.getProperty("maven.repo.local", "").trim();
        if (!prop.isEmpty()) {
            return Path.of(prop);
        }
        return Path.of(System.getProperty("user.home"), ".m2", "repository");
    }
}
