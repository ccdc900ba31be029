package io.stallscope.agent.instrument;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

import static net.bytebuddy.matcher.ElementMatchers.named;

/**
 * Installs one resettable transformer applying visitors to classes by name, retransformation only and no
 * class-format change, so it reaches classes loaded before and after and can be removed on detach. Shared by the
 * mitigations and the stop/start breakdown, each with its own transformer.
 */
public final class VisitorWeaver {
    private VisitorWeaver() {
    }

    /** onError gets the class name and the failure; the class then runs unmodified. */
    public static ResettableClassFileTransformer install(Map<String, List<AsmVisitorWrapper>> byType,
                                                         Instrumentation inst, BiConsumer<String, Throwable> onError) {
        AgentBuilder builder = AgentBuilders.retransforming(new AgentBuilder.Listener.Adapter() {
            @Override
            public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded,
                                Throwable error) {
                onError.accept(typeName, error);
            }
        });
        for (Map.Entry<String, List<AsmVisitorWrapper>> e : byType.entrySet()) {
            List<AsmVisitorWrapper> visitors = e.getValue();
            builder = builder.type(named(e.getKey())).transform(
                (DynamicType.Builder<?> b, TypeDescription type, ClassLoader loader, JavaModule module,
                 java.security.ProtectionDomain pd) -> {
                    DynamicType.Builder<?> out = b;
                    for (AsmVisitorWrapper v : visitors) {
                        out = out.visit(v);
                    }
                    return out;
                });
        }
        return builder.installOn(inst);
    }
}
