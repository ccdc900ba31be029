package io.stallscope.agent.report.jfr;

import io.stallscope.agent.model.OpKind;
import jdk.jfr.AnnotationElement;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventFactory;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.ValueDescriptor;

import java.util.ArrayList;
import java.util.List;

/**
 * One JFR event type per op, made from its {@link OpKind} declaration and the {@link OpEventField}s, so
 * no event class restates an op's name or fields. Each type is registered when this class loads and stays
 * registered while the factories are reachable (this class's lifetime).
 */
public final class OpEvents {
    private static final String[] CATEGORY = {"Stallscope", "Storage"};
    private static final EventFactory[] FACTORIES = factories();

    private OpEvents() {
    }

    /** A new event of the op's type; set its fields with {@link #set} only if it is enabled. */
    public static Event create(int op) {
        return FACTORIES[op].newEvent();
    }

    public static void set(Event event, OpEventField field, Object value) {
        event.set(field.index(), value);
    }

    /** The event type's name, e.g. stallscope.RecordsAppend. */
    public static String name(int op) {
        return OpKind.of(op).eventName();
    }

    private static EventFactory[] factories() {
        List<ValueDescriptor> fields = new ArrayList<>();
        for (OpEventField f : OpEventField.values()) {
            fields.add(f.descriptor());
        }
        EventFactory[] out = new EventFactory[OpKind.count()];
        for (OpKind kind : OpKind.values()) {
            List<AnnotationElement> annotations = new ArrayList<>();
            annotations.add(new AnnotationElement(Name.class, kind.eventName()));
            annotations.add(new AnnotationElement(Label.class, kind.eventLabel()));
            annotations.add(new AnnotationElement(Description.class, kind.help()));
            annotations.add(new AnnotationElement(Category.class, CATEGORY));
            annotations.add(new AnnotationElement(StackTrace.class, true));
            out[kind.id()] = EventFactory.create(annotations, fields);
        }
        return out;
    }
}
