package io.stallscope.agent.holes;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/** The names of the methods a method calls, read from a Kafka version's class files (no class is loaded). */
final class ClassCalls {
    private ClassCalls() {
    }

    static List<String> in(Path versionJars, String className, String methodName) throws IOException {
        String entry = className.replace('.', '/') + ".class";
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(versionJars, "*.jar")) {
            for (Path jar : jars) {
                try (JarFile file = new JarFile(jar.toFile())) {
                    ZipEntry e = file.getEntry(entry);
                    if (e != null) {
                        try (InputStream in = file.getInputStream(e)) {
                            return calls(in.readAllBytes(), methodName);
                        }
                    }
                }
            }
        }
        throw new IOException(className + " not in " + versionJars);
    }

    private static List<String> calls(byte[] classFile, String methodName) {
        List<String> calls = new ArrayList<>();
        new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                if (!name.equals(methodName) || (access & Opcodes.ACC_STATIC) != 0) {
                    return null;
                }
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(int opcode, String owner, String callee, String desc, boolean itf) {
                        calls.add(callee);
                    }
                };
            }
        }, ClassReader.SKIP_DEBUG);
        return calls;
    }
}
