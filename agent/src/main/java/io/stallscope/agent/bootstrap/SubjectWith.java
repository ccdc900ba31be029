package io.stallscope.agent.bootstrap;

/**
 * An op's subject and one detail that names what in it the op worked on (a remote segment and the index fetched of
 * it): made by advice only where the subject alone does not say it, and read only when a report needs the path. On
 * the bootstrap class path with the hooks: keep it free of dependencies.
 */
public final class SubjectWith {
    private final Object subject;
    private final Object detail;

    public SubjectWith(Object subject, Object detail) {
        this.subject = subject;
        this.detail = detail;
    }

    public Object subject() {
        return subject;
    }

    public Object detail() {
        return detail;
    }
}
