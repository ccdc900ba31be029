package io.stallscope.it.demo;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A print stream that passes lines through except those starting with a prefix. */
final class SkipLines extends PrintStream {
    SkipLines(PrintStream target, String prefix) {
        super(new OutputStream() {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override
            public synchronized void write(int b) {
                line.write(b);
                if (b == '\n') {
                    String text = line.toString(StandardCharsets.UTF_8);
                    if (!text.startsWith(prefix)) {
                        target.print(text);
                        target.flush();
                    }
                    line.reset();
                }
            }

            @Override
            public synchronized void flush() {
                // partial lines wait for their end, so a prefix is always seen whole
            }
        }, true, StandardCharsets.UTF_8);
    }
}
