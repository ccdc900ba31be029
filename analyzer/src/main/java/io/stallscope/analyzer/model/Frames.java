package io.stallscope.analyzer.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Interned frames ("java.io.FileOutputStream.writeBytes" at a line), shared by all files and chunks. */
public final class Frames {
    private final Map<Key, Integer> index = new HashMap<>();
    private final List<String> names = new ArrayList<>();
    private final List<Integer> lines = new ArrayList<>();
    private final List<Boolean> java = new ArrayList<>();

    public int intern(String name, int line, boolean isJava) {
        Key key = new Key(name, line, isJava);
        Integer id = index.get(key);
        if (id != null) return id;
        int n = names.size();
        names.add(name);
        lines.add(line);
        java.add(isJava);
        index.put(key, n);
        return n;
    }

    private record Key(String name, int line, boolean java) {
        // Written out: a record's generated equals and hashCode are method-handle chains that C2 inlines into every
        // map lookup that uses them, which made compiling those lookups cost more than running them.
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.line == line && k.java == java && k.name.equals(name);
        }

        @Override
        public int hashCode() {
            return (name.hashCode() * 31 + line) * 2 + (java ? 1 : 0);
        }
    }

    public String name(int id) {
        return names.get(id);
    }

    public int line(int id) {
        return lines.get(id);
    }

    public boolean isJava(int id) {
        return java.get(id);
    }

    /** "Class.method:line" for Java frames, the bare symbol for native ones. */
    public String label(int id) {
        int line = lines.get(id);
        return java.get(id) && line > 0 ? names.get(id) + ':' + line : names.get(id);
    }

    public int size() {
        return names.size();
    }
}
