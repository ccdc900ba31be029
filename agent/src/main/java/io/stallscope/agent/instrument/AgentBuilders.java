package io.stallscope.agent.instrument;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.dynamic.Nexus;
import net.bytebuddy.dynamic.scaffold.TypeValidation;

import static net.bytebuddy.matcher.ElementMatchers.none;

/**
 * The one way the agent configures ByteBuddy: retransformation without class-format changes, so a transformer
 * reaches classes loaded before and after it and can be reset on detach.
 */
final class AgentBuilders {
    /**
     * ByteBuddy's Nexus (shaded name) injects a class into the system class loader when the first AgentBuilder is
     * made, for type initializers that retransformation without format changes never uses: 0.3 s of the start.
     * (The shaded jar relocates this constant with the class names.)
     */
    private static final String NEXUS_DISABLED = Nexus.PROPERTY;

    private AgentBuilders() {
    }

    static AgentBuilder retransforming(AgentBuilder.Listener listener) {
        if (System.getProperty(NEXUS_DISABLED) == null) {
            System.setProperty(NEXUS_DISABLED, "true");
        }
        return new AgentBuilder.Default(new ByteBuddy().with(TypeValidation.DISABLED))
            .disableClassFormatChanges()
            .with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
            // every transform only visits methods (advice, ASM visitors): decorating skips the method graph that
            // redefinition computes for each class, most of ByteBuddy's work and of what the JIT compiled of it
            .with(AgentBuilder.TypeStrategy.Default.DECORATE)
            .with(listener)
            // only the exact classes of the plan are matched, so nothing needs ignoring (the
            // default would ignore the bootstrap loader and with it FileChannelImpl)
            .ignore(none());
    }
}
