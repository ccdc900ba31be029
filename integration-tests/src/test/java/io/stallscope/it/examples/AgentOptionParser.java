package io.stallscope.it.examples;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The agent's own option parser ({@code io.stallscope.agent.config.AgentOptions}), loaded from the
 * shaded jar the examples deploy, so an example's option string is judged by exactly the code that
 * will read it in the broker.
 */
public final class AgentOptionParser implements AutoCloseable {
    private final URLClassLoader loader;
    private final Method parse;

    /**
     * What the agent made of an option string: its Prometheus endpoint and the options it ignored (a removed
     * one, with why; none from an agent before that list existed), or the error it would log.
     */
    public record Result(String prometheus, List<String> ignored, String error) {
        public boolean ok() {
            return error == null;
        }
    }

    public AgentOptionParser(Path agentJar) throws Exception {
        loader = new URLClassLoader(new URL[] {agentJar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        parse = loader.loadClass("io.stallscope.agent.config.AgentOptions").getMethod("parse", String.class, Map.class);
    }

    /** Parses as the agent does at start with no STALLSCOPE_* environment. */
    public Result parse(String agentArgs) throws Exception {
        try {
            Object options = parse.invoke(null, agentArgs, Map.of());
            List<String> ignored = new ArrayList<>();
            try {
                for (Object clause : (List<?>) options.getClass().getMethod("ignored").invoke(options)) {
                    ignored.add(String.valueOf(clause));
                }
            } catch (NoSuchMethodException olderAgent) {
                // an agent from before removed options were ignored: it ignores none
            }
            return new Result(String.valueOf(options.getClass().getMethod("prometheus").invoke(options)), ignored, null);
        } catch (InvocationTargetException e) {
            if (e.getCause().getClass().getSimpleName().equals("OptionException")) {
                return new Result(null, List.of(), e.getCause().getMessage());
            }
            throw e;
        }
    }

    @Override
    public void close() throws Exception {
        loader.close();
    }
}
