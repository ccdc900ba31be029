package io.stallscope.agent.kafka;

import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isBridge;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.not;

/**
 * Resolves catalog entries against the class files the JVM would load, through a TypePool, without loading
 * any class: which candidate class declares a method of the target's shape. One answer for timing points
 * and mitigations alike: resolved, absent as the catalog expects for this Kafka (and why), or mismatched
 * (and what was found instead).
 */
public final class TargetResolver {
    /** Applied to every target: compiler-made methods would double-count or cannot be advised. */
    static final ElementMatcher.Junction<MethodDescription> ADVISABLE =
        not(isSynthetic()).and(not(isBridge())).and(not(isAbstract())).and(not(isNative())).and(not(isConstructor()));

    private final TypePool pool;
    private final String kafkaVersion;

    /** kafkaVersion may be "unknown": then an absence the catalog allows is taken as expected. */
    public TargetResolver(TypePool pool, String kafkaVersion) {
        this.pool = pool;
        this.kafkaVersion = kafkaVersion;
    }

    public Resolution resolve(KafkaTarget target) {
        Map<String, List<String>> found = new LinkedHashMap<>();
        List<String> mismatches = new ArrayList<>();
        for (String className : target.classes()) {
            TypeDescription type;
            MethodList<MethodDescription.InDefinedShape> methods;
            try {
                TypePool.Resolution resolution = pool.describe(className);
                if (!resolution.isResolved()) {
                    continue;
                }
                type = resolution.resolve();
                methods = type.getDeclaredMethods().filter(target.advisable());
            } catch (RuntimeException e) {
                // a signature naming a class absent from the class path: not this version's shape
                mismatches.add(className + " unreadable (" + e.getClass().getSimpleName() + ")");
                continue;
            }
            if (methods.isEmpty()) {
                if (!target.overrideOnly(className)) {
                    mismatches.add(className + " has no method of the expected shape" + namesakes(type, target));
                }
                continue;
            }
            String problem = target.verify(type);
            if (problem != null) {
                mismatches.add(problem);
                continue;
            }
            List<String> descriptors = new ArrayList<>();
            for (MethodDescription m : methods) {
                descriptors.add(m.getInternalName() + m.getDescriptor());
            }
            found.put(className, descriptors);
        }
        if (!found.isEmpty()) {
            return Resolution.resolved(target, found);
        }
        String what = mismatches.isEmpty()
            ? "no class of " + target.classes() + " on the class path" : String.join("; ", mismatches);
        Presence presence = target.presence();
        if (presence.canBeAbsent() && (!presence.expectedIn(kafkaVersion) || !KafkaReleases.isKnown(kafkaVersion))) {
            return Resolution.absent(target, Resolution.Status.EXPECTEDLY_ABSENT, presence.absenceNote() + " (" + what + ")");
        }
        return Resolution.absent(target, Resolution.Status.MISMATCHED, "not as the catalog expects: " + what);
    }

    /** Methods of the same name with another shape: what the operator (or the next engineer) needs to see. */
    private static String namesakes(TypeDescription type, KafkaTarget target) {
        TreeSet<String> names = new TreeSet<>();
        String wanted = target.methodName();
        for (MethodDescription m : type.getDeclaredMethods()) {
            if (m.getInternalName().equals(wanted) || m.getInternalName().endsWith(wanted)) {
                names.add(m.getInternalName() + m.getDescriptor());
            }
        }
        return names.isEmpty() ? "" : " (found " + String.join(", ", names) + ")";
    }
}
