package io.stallscope.agent.instrument;

import io.stallscope.agent.bootstrap.Op;
import io.stallscope.agent.instrument.advice.FirstArgLongBytesAdvice;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.matcher.ElementMatcher;

import java.nio.channels.FileChannel;
import java.util.Collections;
import java.util.List;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * SslTransportLayer.transferFrom(FileChannel, long, long): with TLS the network thread cannot use
 * sendfile and reads the segment with FileChannel.read into a buffer instead; a cold read stalls it
 * the same way.
 */
public final class TlsTransferPoint extends InstrumentationPoint {
    @Override
    public int op() {
        return Op.TLS_TRANSFER;
    }

    @Override
    public List<String> types() {
        return Collections.singletonList("org.apache.kafka.common.network.SslTransportLayer");
    }

    @Override
    public ElementMatcher.Junction<MethodDescription> methods() {
        return named("transferFrom").and(takesArguments(FileChannel.class, long.class, long.class))
            .and(returns(long.class));
    }

    @Override
    public Class<?> advice() {
        return FirstArgLongBytesAdvice.class;
    }

    @Override
    public String describe() {
        return "SslTransportLayer.transferFrom(FileChannel,long,long)";
    }
}
