package io.stallscope.testcontainers;

import org.testcontainers.utility.MountableFile;

/** The agent jar this module carries as a classpath resource (its build copies the shaded agent in). */
final class AgentJar {
    static final String RESOURCE = "io/stallscope/testcontainers/stallscope-agent.jar";
    /** Where it goes in the container. */
    static final String CONTAINER_PATH = "/opt/stallscope/stallscope-agent.jar";

    private AgentJar() {
    }

    static MountableFile file() {
        if (AgentJar.class.getClassLoader().getResource(RESOURCE) == null) {
            throw new IllegalStateException("the agent jar " + RESOURCE + " is not on the classpath: depend on"
                    + " io.stallscope:stallscope-testcontainers (its jar carries the agent), not on its classes alone");
        }
        return MountableFile.forClasspathResource(RESOURCE);
    }
}
