package io.stallscope.it.container;

import org.testcontainers.DockerClientFactory;

/**
 * Whether a container engine answers Testcontainers (a Docker engine, or podman's Docker-API socket
 * named by DOCKER_HOST), and what to do when none does.
 */
public final class ContainerEngine {

    private ContainerEngine() {
    }

    public static boolean available() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** CI must run the container tests: there a missing engine fails instead of skipping. */
    public static boolean required() {
        return "true".equalsIgnoreCase(System.getenv("CI")) || Boolean.getBoolean("stallscope.containers.required");
    }

    public static String missingMessage() {
        return "no container engine answers Testcontainers (DOCKER_HOST=" + System.getenv("DOCKER_HOST")
                + "). Run scripts/provision.sh (as root; installs and starts podman unless `docker info` works), then"
                + " eval \"$(scripts/containers.sh env)\" before mvn, or use scripts/test, which does both.";
    }
}
