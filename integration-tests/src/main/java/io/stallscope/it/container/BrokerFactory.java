package io.stallscope.it.container;

import io.stallscope.it.broker.BrokerSpec;
import io.stallscope.it.broker.KafkaBroker;
import io.stallscope.it.broker.LocalKafkaBroker;

import java.util.Locale;

/**
 * Both {@link KafkaBroker} implementations behind one switch, so a test written against the interface
 * runs a broker in a child JVM or in a container from the same {@link BrokerSpec} (host paths in the spec
 * are mounted at the same paths, see {@link ContainerKafkaBroker}): {@code BrokerFactory.current().create(spec)}
 * with {@code -Dstallscope.broker=local} (default) or {@code container}.
 */
public enum BrokerFactory {
    LOCAL {
        @Override
        public KafkaBroker create(BrokerSpec spec) {
            return new LocalKafkaBroker(spec);
        }
    },
    CONTAINER {
        @Override
        public KafkaBroker create(BrokerSpec spec) {
            return new ContainerKafkaBroker(spec);
        }
    };

    public static final String PROPERTY = "stallscope.broker";

    public abstract KafkaBroker create(BrokerSpec spec);

    public static BrokerFactory current() {
        String v = System.getProperty(PROPERTY, "local").trim().toUpperCase(Locale.ROOT);
        try {
            return valueOf(v.isEmpty() ? "LOCAL" : v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-D" + PROPERTY + " must be local or container, not " + v.toLowerCase(Locale.ROOT));
        }
    }
}
