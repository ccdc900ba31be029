package io.stallscope.it.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A {@code -javaagent:JAR=OPTIONS} argument found in an example's text (a shell line, YAML value, unit file). */
record JavaAgentOption(String jar, String options) {
    private static final Pattern JAVAAGENT = Pattern.compile("-javaagent:([^=\\s\"']+)(?:=([^\\s\"']*))?");

    static List<JavaAgentOption> findAll(String text) {
        List<JavaAgentOption> out = new ArrayList<>();
        Matcher m = JAVAAGENT.matcher(text);
        while (m.find()) {
            out.add(new JavaAgentOption(m.group(1), m.group(2) == null ? "" : m.group(2)));
        }
        return out;
    }

    static JavaAgentOption single(String where, String text) {
        List<JavaAgentOption> all = findAll(text);
        if (all.size() != 1) {
            throw new AssertionError(where + ": expected one -javaagent option, found " + all);
        }
        return all.get(0);
    }

    String argument() {
        return "-javaagent:" + jar + (options.isEmpty() ? "" : "=" + options);
    }
}
