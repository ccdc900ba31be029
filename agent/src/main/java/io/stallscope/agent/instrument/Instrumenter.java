package io.stallscope.agent.instrument;

import io.stallscope.agent.instrument.advice.OpId;
import io.stallscope.agent.logging.BrokerLog;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.agent.builder.ResettableClassFileTransformer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.utility.JavaModule;

import java.lang.instrument.Instrumentation;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static net.bytebuddy.matcher.ElementMatchers.named;

/**
 * Installs the plan: advice on exactly the resolved classes and methods. Retransformation without
 * class-format changes, so the same transformer serves classes loaded later (premain), classes
 * already loaded (attach, and the JDK's FileChannelImpl), and can be reset on detach.
 */
public final class Instrumenter {
    private final Instrumentation instrumentation;
    private final BrokerLog log;
    private final Set<String> transformed = ConcurrentHashMap.newKeySet();
    private final Map<String, String> failed = new ConcurrentHashMap<>();
    private ResettableClassFileTransformer transformer;

    public Instrumenter(Instrumentation instrumentation, BrokerLog log) {
        this.instrumentation = instrumentation;
        this.log = log;
    }

    public void install(List<PointPlan> plans) {
        AgentBuilder builder = AgentBuilders.retransforming(new Listener());
        for (PointPlan plan : plans) {
            if (!plan.isMatched()) {
                continue;
            }
            InstrumentationPoint point = plan.point();
            for (String typeName : plan.methodsByType().keySet()) {
                builder = builder.type(named(typeName)).transform(
                    (DynamicType.Builder<?> b, TypeDescription type, ClassLoader loader, JavaModule module,
                     java.security.ProtectionDomain pd) -> b.visit(Advice.withCustomMapping()
                        .bind(OpId.class, point.op())
                        .to(point.advice())
                        .on(point.target().advisable())));
            }
        }
        transformer = builder.installOn(instrumentation);
    }

    /** Classes actually rewritten so far (classes not yet loaded are rewritten when they load). */
    public Set<String> transformed() {
        return transformed;
    }

    public Map<String, String> failed() {
        return failed;
    }

    /** Restores the original bytecode of every class this transformer rewrote. */
    public boolean reset() {
        return transformer != null
            && transformer.reset(instrumentation, AgentBuilder.RedefinitionStrategy.RETRANSFORMATION);
    }

    private final class Listener extends AgentBuilder.Listener.Adapter {
        @Override
        public void onTransformation(TypeDescription type, ClassLoader loader, JavaModule module, boolean loaded,
                                     DynamicType dynamicType) {
            transformed.add(type.getName());
        }

        @Override
        public void onError(String typeName, ClassLoader loader, JavaModule module, boolean loaded, Throwable error) {
            if (failed.putIfAbsent(typeName, String.valueOf(error)) == null) {
                log.error("could not instrument " + typeName + " (" + error + "); it runs unmodified, "
                    + "the broker is unaffected");
            }
        }
    }
}
