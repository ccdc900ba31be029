package io.stallscope.agent.report;

/** JMX view of one op and thread role: io.stallscope:type=OpStats,op=...,role=... */
public interface OpStatsMBean {
    long getCount();

    double getTotalSeconds();

    double getMeanSeconds();

    double getMaxSeconds();

    /** The upper bound of the histogram bucket holding the 99th percentile. */
    double getP99Seconds();
}
