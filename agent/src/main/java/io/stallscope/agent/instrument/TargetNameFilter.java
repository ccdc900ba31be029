package io.stallscope.agent.instrument;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;

import java.lang.instrument.IllegalClassFormatException;
import java.security.ProtectionDomain;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * Lets only the classes of a plan reach ByteBuddy's transformer. Without it every class the broker loads goes
 * through ByteBuddy's type description and matchers in each of the agent's four transformers, while a name in a
 * set is all it takes to say no (docs/lab/agent-start.md).
 */
final class TargetNameFilter extends ResettableClassFileTransformer.WithDelegation {
    private final Set<String> internalNames;

    private TargetNameFilter(ResettableClassFileTransformer delegate, Set<String> internalNames) {
        super(delegate);
        this.internalNames = internalNames;
    }

    /** A decorator for {@link AgentBuilder#with(AgentBuilder.TransformerDecorator)}: binary names, as in the plan. */
    static AgentBuilder.TransformerDecorator forTypes(Collection<String> binaryNames) {
        Set<String> names = new HashSet<>();
        for (String name : binaryNames) {
            names.add(name.replace('.', '/'));
        }
        return transformer -> new TargetNameFilter(transformer, names);
    }

    /** The JVM calls this one on Java 9 and later. */
    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                            ProtectionDomain domain, byte[] classFile) throws IllegalClassFormatException {
        // className is null for hidden classes (lambdas): never a target
        if (className == null || !internalNames.contains(className)) {
            return null;
        }
        return classFileTransformer.transform(module, loader, className, redefined, domain, classFile);
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
                            byte[] classFile) throws IllegalClassFormatException {
        if (className == null || !internalNames.contains(className)) {
            return null;
        }
        return classFileTransformer.transform(loader, className, redefined, domain, classFile);
    }
}
