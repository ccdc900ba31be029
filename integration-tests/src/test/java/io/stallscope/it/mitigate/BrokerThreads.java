package io.stallscope.it.mitigate;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The broker's Java thread names by native thread id (from jcmd Thread.print), to tell which thread made
 * a call the shim logged: the OS keeps only 15 characters of a name, and request handlers and network
 * threads both start with "data-plane-kafk".
 */
final class BrokerThreads {
    private static final Pattern THREAD = Pattern.compile("^\"(.*)\" .*nid=(0x[0-9a-f]+|\\d+)");

    private BrokerThreads() {
    }

    static Map<Long, String> byTid(long pid) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("jcmd Thread.print failed: " + out);
        }
        Map<Long, String> names = new HashMap<>();
        for (String line : out.split("\n")) {
            Matcher m = THREAD.matcher(line);
            if (m.find()) {
                String nid = m.group(2);
                names.put(nid.startsWith("0x") ? Long.parseLong(nid.substring(2), 16) : Long.parseLong(nid), m.group(1));
            }
        }
        return names;
    }
}
