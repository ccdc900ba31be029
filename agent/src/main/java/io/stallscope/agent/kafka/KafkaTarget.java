package io.stallscope.agent.kafka;

import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One method shape the agent hooks in Kafka (or in the JDK under it): the classes it has lived in,
 * oldest first, the shape a method must have, and the versions that have it. Resolved against the
 * class files by {@link TargetResolver} before anything is transformed, the way OpenTelemetry's muzzle
 * checks an instrumentation module.
 */
public final class KafkaTarget {
    private final String name;
    private final String describe;
    private final List<String> classes;
    private final ElementMatcher.Junction<MethodDescription> shape;
    private final Set<String> overrideOnly;
    private final Presence presence;
    private final boolean inJdk;
    private final Function<TypeDescription, String> verify;

    private KafkaTarget(Builder b) {
        this.name = b.name;
        this.describe = b.describe;
        this.classes = Collections.unmodifiableList(b.classes);
        this.shape = b.shape;
        this.overrideOnly = Collections.unmodifiableSet(b.overrideOnly);
        this.presence = b.presence;
        this.inJdk = b.inJdk;
        this.verify = b.verify;
    }

    static Builder named(String name, String describe) {
        return new Builder(name, describe);
    }

    /** The catalog's name for it, e.g. "segment.flush". */
    public String name() {
        return name;
    }

    /** What the operator reads, e.g. "LogSegment.flush()". */
    public String describe() {
        return describe;
    }

    /** Every fully qualified class the method has lived in, oldest first. */
    public List<String> classes() {
        return classes;
    }

    /** The method's shape, without the exclusions every target shares ({@link TargetResolver#ADVISABLE}). */
    public ElementMatcher.Junction<MethodDescription> shape() {
        return shape;
    }

    /** The shape with those exclusions: what advice is applied on. */
    public ElementMatcher.Junction<MethodDescription> advisable() {
        return TargetResolver.ADVISABLE.and(shape);
    }

    /** Candidates that declare the method only when they override it (TimeIndex.resize): lacking it is no mismatch. */
    boolean overrideOnly(String className) {
        return overrideOnly.contains(className);
    }

    public Presence presence() {
        return presence;
    }

    /** Lives in the JDK, loaded before the agent: its advice needs the bootstrap class path. */
    public boolean inJdk() {
        return inJdk;
    }

    /** Further checks of a matched class (a field the advice reads); null when it fits. */
    String verify(TypeDescription type) {
        return verify == null ? null : verify.apply(type);
    }

    /** The method's name as the operator would search for it, to list namesakes when the shape does not match. */
    String methodName() {
        return describe.replaceAll("^[^.]*\\.|\\(.*$", "");
    }

    @Override
    public String toString() {
        return name;
    }

    static final class Builder {
        private final String name;
        private final String describe;
        private List<String> classes = Collections.emptyList();
        private ElementMatcher.Junction<MethodDescription> shape;
        private final Set<String> overrideOnly = new HashSet<>();
        private Presence presence = Presence.ALWAYS;
        private boolean inJdk;
        private Function<TypeDescription, String> verify;

        private Builder(String name, String describe) {
            this.name = name;
            this.describe = describe;
        }

        Builder in(String... oldestFirst) {
            this.classes = Arrays.asList(oldestFirst);
            return this;
        }

        Builder overrideOnlyIn(String... classNames) {
            overrideOnly.addAll(Arrays.asList(classNames));
            return this;
        }

        Builder shape(ElementMatcher.Junction<MethodDescription> methodShape) {
            this.shape = methodShape;
            return this;
        }

        /** Present from this version on; before it, absent for the reason given. */
        Builder since(String version, String whyAbsentBefore) {
            this.presence = Presence.between(version, null, whyAbsentBefore);
            return this;
        }

        /** Present before this version; from it on, absent for the reason given. */
        Builder until(String version, String whyAbsentFrom) {
            this.presence = Presence.between(null, version, whyAbsentFrom);
            return this;
        }

        /** Present in [from, before); outside, absent for the reason given. */
        Builder between(String from, String before, String whyAbsentOutside) {
            this.presence = Presence.between(from, before, whyAbsentOutside);
            return this;
        }

        /** Present in these ranges only (a fix backported to some release lines): {@link Presence#inRanges}. */
        Builder inRanges(String whyAbsentOutside, String... bounds) {
            this.presence = Presence.inRanges(whyAbsentOutside, bounds);
            return this;
        }

        /** A further check of a matched class: the field its advice reads. */
        Builder verify(Function<TypeDescription, String> check) {
            this.verify = check;
            return this;
        }

        Builder inJdk(Function<TypeDescription, String> check) {
            this.inJdk = true;
            this.verify = check;
            return this;
        }

        KafkaTarget build() {
            if (classes.isEmpty() || shape == null) {
                throw new IllegalStateException(name + ": classes and shape are required");
            }
            return new KafkaTarget(this);
        }
    }
}
