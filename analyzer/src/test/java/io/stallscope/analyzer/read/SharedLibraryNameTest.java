package io.stallscope.analyzer.read;

import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Native frames are told by their "class" being a shared library: the check agrees with the pattern it replaced. */
class SharedLibraryNameTest {
    private static final Pattern LIBRARY = Pattern.compile(".*\\.so(\\.\\d+)*");

    @Test
    void agreesWithThePatternOnLibrariesAndClasses() {
        String[] names = {"libc.so.6", "libjvm.so", "libpthread.so.0", "ld-linux-x86-64.so.2", "libfoo.so.1.2.3",
            "libx.so6", "libx.so.", "libx.so.6a", "libx.so..6", "a.so.b.so", "a.sox", "java.lang.Thread",
            "sun.nio.ch.FileDispatcherImpl", "", ".so", "so", "x.so.12.x", "x.so.\u0661"};
        for (String n : names) {
            assertThat(ConstantPools.isSharedLibrary(n)).as(n).isEqualTo(LIBRARY.matcher(n).matches());
        }
        assertThat(ConstantPools.isSharedLibrary("libc.so.6")).isTrue();
        assertThat(ConstantPools.isSharedLibrary("java.lang.Thread")).isFalse();
    }
}
