package io.stallscope.agent.kafka;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link KafkaTargets#FETCH_READ} returns: a Scala Seq of (partition, LogReadResult) pairs, each
 * result's info() the FetchDataInfo whose records the response will send. Read reflectively: LogReadResult
 * is Scala in kafka.server up to 4.0, Java in org.apache.kafka.server in 4.1 and in ...storage.internals.log
 * from 4.2, all with a public info().
 */
public final class FetchReadResults {
    /** Scala's interfaces, public wherever the runtime classes are not, per class loader. */
    private static final Map<ClassLoader, Method[]> SCALA = new ConcurrentHashMap<>();
    private static final Map<Class<?>, Method> INFO = new ConcurrentHashMap<>();

    private FetchReadResults() {
    }

    /**
     * Whether the call says it read from purgatory (a DelayedFetch completing, possibly on another request's
     * thread; from 4.0 also a share fetch): its last readFromPurgatory flag, 3.3+. 2.8 to 3.2 end with an
     * Option and say nothing: there the thread is marked in DelayedFetch.onComplete instead.
     */
    public static boolean fromPurgatory(Object[] args) {
        Object last = args == null || args.length == 0 ? null : args[args.length - 1];
        return last instanceof Boolean && (Boolean) last;
    }

    /** The FetchDataInfo of every partition read, in the fetch's order. */
    public static List<Object> fetchDataInfos(Object seq) throws ReflectiveOperationException {
        List<Object> out = new ArrayList<>();
        if (seq == null) {
            return out;
        }
        ClassLoader loader = seq.getClass().getClassLoader();
        Method[] scala = SCALA.get(loader);
        if (scala == null) {
            scala = new Method[] {
                Class.forName("scala.collection.Iterable", false, loader).getMethod("iterator"),
                Class.forName("scala.collection.Iterator", false, loader).getMethod("hasNext"),
                Class.forName("scala.collection.Iterator", false, loader).getMethod("next"),
                Class.forName("scala.Tuple2", false, loader).getMethod("_2")};
            SCALA.put(loader, scala);
        }
        Object it = scala[0].invoke(seq);
        while ((Boolean) scala[1].invoke(it)) {
            Object result = scala[3].invoke(scala[2].invoke(it));
            if (result == null) {
                continue;
            }
            Method info = INFO.get(result.getClass());
            if (info == null) {
                info = result.getClass().getMethod("info");
                INFO.put(result.getClass(), info);
            }
            out.add(info.invoke(result));
        }
        return out;
    }
}
