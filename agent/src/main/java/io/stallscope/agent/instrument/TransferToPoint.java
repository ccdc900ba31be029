package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.TransferToAdvice;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.nio.channels.WritableByteChannel;
import java.util.Collections;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * The JDK's FileChannelImpl.transferTo(long, long, WritableByteChannel): sendfile(2) on the network
 * thread for a plaintext fetch. Its internals differ on JDK 17, 21 and 25 (and the native call
 * cannot be advised); the public method is stable.
 */
public final class TransferToPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.TRANSFER_TO;
    }

    @Override
    public List<String> types() {
        return Collections.singletonList("sun.nio.ch.FileChannelImpl");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("transferTo").and(takesArguments(long.class, long.class, WritableByteChannel.class))
            .and(returns(long.class));
    }

    @Override
    public Class<?> advice() {
        return TransferToAdvice.class;
    }

    @Override
    public String describe() {
        return "FileChannelImpl.transferTo(long,long,WritableByteChannel)";
    }

    @Override
    public String verify(TypeDescription type) {
        for (FieldDescription.InDefinedShape field : type.getDeclaredFields()) {
            if (field.getName().equals("path") && field.getType().asErasure().represents(String.class)) {
                return null;
            }
        }
        return "FileChannelImpl has no String field 'path' on this JDK";
    }

    @Override
    public boolean inJdk() {
        return true;
    }
}
