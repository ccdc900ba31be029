package io.stallscope.agent.instrument;

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
 * Checks each point against the class files the JVM would load, through a TypePool, without loading
 * any class: which of a point's candidate classes exists in this Kafka, and whether a method of the
 * expected shape is there. The result is the plan the transformer applies and the start-up line states.
 */
public final class PlanResolver {
    /** Applied to every point: compiler-made methods would double-count or cannot be advised. */
    static final ElementMatcher.Junction<MethodDescription> ADVISABLE =
        not(isSynthetic()).and(not(isBridge())).and(not(isAbstract())).and(not(isNative())).and(not(isConstructor()));

    private final TypePool pool;

    public PlanResolver(TypePool pool) {
        this.pool = pool;
    }

    /** A point not looked at, with the reason (disabled by an option, a missing prerequisite). */
    public static PointPlan disabled(InstrumentationPoint point, String reason) {
        return PointPlan.skipped(point, reason);
    }

    public PointPlan resolve(InstrumentationPoint point) {
        Map<String, List<String>> found = new LinkedHashMap<>();
        List<String> mismatches = new ArrayList<>();
        for (String typeName : point.types()) {
            TypePool.Resolution resolution;
            try {
                resolution = pool.describe(typeName);
            } catch (RuntimeException e) {
                mismatches.add(typeName + " unreadable (" + e.getClass().getSimpleName() + ")");
                continue;
            }
            if (!resolution.isResolved()) {
                continue;
            }
            TypeDescription type = resolution.resolve();
            MethodList<MethodDescription.InDefinedShape> methods;
            try {
                methods = type.getDeclaredMethods().filter(ADVISABLE.and(point.methods()));
            } catch (RuntimeException e) {
                // a signature naming a class absent from the classpath: not this version's shape
                mismatches.add(typeName + " unreadable (" + e.getClass().getSimpleName() + ")");
                continue;
            }
            if (methods.isEmpty()) {
                if (!isOptionalCandidate(point, typeName)) {
                    mismatches.add(typeName + " has no method of the expected shape" + namesakes(type, point));
                }
                continue;
            }
            String problem = point.verify(type);
            if (problem != null) {
                mismatches.add(problem);
                continue;
            }
            List<String> descriptors = new ArrayList<>();
            for (MethodDescription m : methods) {
                descriptors.add(m.getInternalName() + m.getDescriptor());
            }
            found.put(typeName, descriptors);
        }
        if (!found.isEmpty()) {
            return PointPlan.matched(point, found);
        }
        String reason = mismatches.isEmpty()
            ? "no class of " + point.types() + " on the class path" : String.join("; ", mismatches);
        return PointPlan.skipped(point, point.whenAbsent() == null ? reason : point.whenAbsent() + " (" + reason + ")");
    }

    /**
     * Subclass candidates (TimeIndex, OffsetIndex) override resize only in some versions; a base
     * class without the method is a real mismatch, a subclass without the override is not.
     */
    private static boolean isOptionalCandidate(InstrumentationPoint point, String typeName) {
        return point instanceof IndexResizePoint && !typeName.endsWith("AbstractIndex");
    }

    private static String namesakes(TypeDescription type, InstrumentationPoint point) {
        TreeSet<String> names = new TreeSet<>();
        String wanted = point.describe().replaceAll("^[^.]*\\.|\\(.*$", "");
        for (MethodDescription m : type.getDeclaredMethods()) {
            if (m.getInternalName().equals(wanted) || m.getInternalName().endsWith(wanted)) {
                names.add(m.getInternalName() + m.getDescriptor());
            }
        }
        return names.isEmpty() ? "" : " (found " + String.join(", ", names) + ")";
    }
}
