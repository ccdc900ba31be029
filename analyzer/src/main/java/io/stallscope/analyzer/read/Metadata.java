package io.stallscope.analyzer.read;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A chunk's self-description: the metadata event's element tree reduced to types and fields. Reading
 * events from this schema, rather than from a fixed layout, is what lets unknown extra fields be skipped.
 */
final class Metadata {
    private static final int MAX_DEPTH = 64;

    final Map<Long, JfrType> byId = new HashMap<>();
    final Map<String, JfrType> byName = new HashMap<>();

    static Metadata read(Cursor c) throws JfrFormatException {
        // Event header: size, type (0), start, duration, metadata id.
        c.varint();
        long type = c.varlong();
        if (type != 0) throw Cursor.corrupt("metadata event expected, found type " + type);
        c.varlong();
        c.varlong();
        c.varlong();
        int n = c.count(1);
        String[] strings = new String[n];
        for (int i = 0; i < n; i++) {
            Object s = c.string();
            strings[i] = s instanceof String ? (String) s : null;
        }
        Metadata m = new Metadata();
        m.readElement(c, strings, null, null, 0);
        m.resolve();
        return m;
    }

    private static String str(String[] strings, int idx) throws JfrFormatException {
        if (idx < 0 || idx >= strings.length) throw Cursor.corrupt("bad metadata string index " + idx);
        return strings[idx];
    }

    /** Walks the tree; {@code owner} is the class being described, {@code field} the field being described. */
    private void readElement(Cursor c, String[] strings, ClassBuilder owner, FieldBuilder field, int depth)
            throws JfrFormatException {
        if (depth > MAX_DEPTH) throw Cursor.corrupt("metadata nested too deep");
        String name = str(strings, c.varint());
        int attrs = c.count(2);
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i < attrs; i++) {
            String k = str(strings, c.varint());
            String v = str(strings, c.varint());
            a.put(k, v);
        }
        ClassBuilder nextOwner = owner;
        FieldBuilder nextField = null;
        if ("class".equals(name)) {
            nextOwner = new ClassBuilder(parseId(a.get("id")), a.get("name"), a.get("superType"));
        } else if ("field".equals(name) && owner != null) {
            nextField = new FieldBuilder(a.get("name"), parseId(a.get("class")),
                    "true".equals(a.get("constantPool")), "1".equals(a.get("dimension")));
            owner.fields.add(nextField);
        } else if ("annotation".equals(name) && field != null) {
            field.annotations.add(new String[] {a.get("class"), a.get("value")});
        }
        int children = c.count(1);
        for (int i = 0; i < children; i++) {
            readElement(c, strings, nextOwner, nextField, depth + 1);
        }
        if (nextOwner != owner) nextOwner.build(this);
    }

    private static long parseId(String s) throws JfrFormatException {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException | NullPointerException e) {
            throw Cursor.corrupt("bad type id in metadata: " + s);
        }
    }

    private final List<FieldBuilder> allFields = new ArrayList<>();

    private void resolve() throws JfrFormatException {
        for (FieldBuilder f : allFields) {
            JfrType t = byId.get(f.field.typeId);
            if (t == null) throw Cursor.corrupt("unknown type id " + f.field.typeId + " for field " + f.field.name);
            f.field.type = t;
            for (String[] ann : f.annotations) {
                JfrType at = ann[0] == null ? null : byId.get(parseId(ann[0]));
                if (at != null && "jdk.jfr.Timespan".equals(at.name)) f.field.timespanUnit = ann[1];
            }
        }
        TypeCosts.compute(byId.values());
    }

    private static final class ClassBuilder {
        final long id;
        final String name;
        final String superType;
        final List<FieldBuilder> fields = new ArrayList<>();

        ClassBuilder(long id, String name, String superType) {
            this.id = id;
            this.name = name == null ? "?" + id : name;
            this.superType = superType;
        }

        void build(Metadata m) {
            JfrType t = new JfrType(id, name, superType);
            JfrType.Kind prim = fields.isEmpty() ? JfrType.primitiveKind(name) : null;
            if (prim != null) t.kind = prim;
            t.fields = new JfrType.JfrField[fields.size()];
            for (int i = 0; i < fields.size(); i++) {
                t.fields[i] = fields.get(i).field;
                m.allFields.add(fields.get(i));
            }
            m.byId.put(id, t);
            m.byName.put(name, t);
        }
    }

    private static final class FieldBuilder {
        final JfrType.JfrField field;
        final List<String[]> annotations = new ArrayList<>();

        FieldBuilder(String name, long typeId, boolean cp, boolean array) {
            this.field = new JfrType.JfrField(name == null ? "?" : name, typeId, cp, array);
        }
    }
}
