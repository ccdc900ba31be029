package io.stallscope.agent;

import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.InputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The entry class must load on Java 8 to print its one line there: a Java 11 class file would make
 * an old JVM abort with "processing of -javaagent failed" instead. No Java 8 JVM can be had on this
 * machine, so this checks the class file version the JVM checks first.
 */
class EntryClassTest {
    @Test
    void entryClassIsJava8Bytecode() throws Exception {
        assertThat(majorVersion(StallscopeAgent.class)).isEqualTo(52);
    }

    @Test
    void everythingElseIsJava11Bytecode() throws Exception {
        assertThat(majorVersion(io.stallscope.agent.runtime.AgentRuntime.class)).isEqualTo(55);
    }

    private static int majorVersion(Class<?> type) throws Exception {
        try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class");
             DataInputStream data = new DataInputStream(in)) {
            assertThat(data.readInt()).isEqualTo(0xCAFEBABE);
            data.readUnsignedShort();
            return data.readUnsignedShort();
        }
    }
}
