package io.stallscope.agent.mitigate;

import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

import java.util.List;

/**
 * Muzzle-style checks against the class files, before anything is transformed: which candidate class
 * of this Kafka declares a method of the expected shape.
 */
final class TypeShapes {
    static final String OAKSIL = "org.apache.kafka.storage.internals.log.";

    private final TypePool pool;

    TypeShapes(TypePool pool) {
        this.pool = pool;
    }

    /** The first candidate type declaring such a method, or null. */
    String declaring(List<String> candidates, ElementMatcher<? super MethodDescription> shape) {
        for (String name : candidates) {
            try {
                TypePool.Resolution resolution = pool.describe(name);
                if (!resolution.isResolved()) {
                    continue;
                }
                TypeDescription type = resolution.resolve();
                if (!type.getDeclaredMethods().filter(shape).isEmpty()) {
                    return name;
                }
            } catch (RuntimeException e) {
                // a signature naming a class this Kafka does not have: not this version's shape
            }
        }
        return null;
    }
}
