package io.stallscope.it.demo;

/** The broker the demo drives: its own local one with the simulated slow disk, or an operator's own. */
interface DemoTarget extends AutoCloseable {

    String bootstrap();

    MetricsEndpoint metrics();

    /** Makes the backlog's pages cold before the catch-up; returns what it did, for the screen. */
    String coolBacklog(DemoTopics topics);

    @Override
    void close();
}
