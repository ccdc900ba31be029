package io.stallscope.agent.safepoint;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * HotSpot's own safepoint counters (sun.rt.safepoints, sun.rt.safepointSyncTime, sun.rt.safepointTime: what
 * {@code jcmd PerfCounter.print} shows), read in process from the JVM's perf-data memory. A read is a load from that
 * memory, some 25 ns through reflection: cheap enough to poll. Unlike a JFR stream it starts no recording, and on JDKs
 * before 22 a JVM's first recording re-instruments the JDK's file and socket classes for JFR's I/O events, which cost
 * a broker at full speed 5-18% of its throughput here (docs/safepoints.md). The price: no VM operation's name, and a
 * sync's time known only as the growth of a total between two reads.
 */
final class SafepointCounters {
    private static final String PATTERN = "sun\\.rt\\.safepoint.*|sun\\.os\\.hrt\\.frequency";

    private final Object management;
    private final Method counters;
    private final Method name;
    private final Object count;
    private final Object syncTicks;
    private final Object totalTicks;
    private final Method longValue;
    /** 0 until HotSpot's clock frequency is known: its counter appears only after premain (JDK 17, 25). */
    private volatile double nanosPerTick;

    private SafepointCounters(Object management, Method counters, Method name, Object count, Object syncTicks,
                              Object totalTicks, Method longValue) {
        this.management = management;
        this.counters = counters;
        this.name = name;
        this.count = count;
        this.syncTicks = syncTicks;
        this.totalTicks = totalTicks;
        this.longValue = longValue;
    }

    /**
     * The JVM's counters, or null with the reason in why[0] (a JVM without perf data, -XX:-UsePerfData, or not
     * HotSpot). java.management does not export them: the agent opens its sun.management packages to itself only.
     */
    static SafepointCounters find(Instrumentation inst, String[] why) {
        try {
            Module management = ClassLoader.getSystemClassLoader().loadClass("sun.management.VMManagement").getModule();
            Module agent = SafepointCounters.class.getModule();
            if (inst != null && !management.isOpen("sun.management", agent)) {
                inst.redefineModule(management, Set.of(), Map.of("sun.management.counter", Set.of(agent)),
                    Map.of("sun.management", Set.of(agent)), Set.of(), Map.of());
            }
            Method vm = Class.forName("sun.management.ManagementFactoryHelper").getDeclaredMethod("getVMManagement");
            vm.setAccessible(true);
            Object management0 = vm.invoke(null);
            Method counters = Class.forName("sun.management.VMManagement").getMethod("getInternalCounters", String.class);
            Method name = Class.forName("sun.management.counter.Counter").getMethod("getName");
            Map<String, Object> found = byName(counters.invoke(management0, PATTERN), name);
            Object count = found.get("sun.rt.safepoints");
            Object sync = found.get("sun.rt.safepointSyncTime");
            Object total = found.get("sun.rt.safepointTime");
            if (count == null || sync == null || total == null) {
                why[0] = "no HotSpot safepoint counters in this JVM (perf data off: -XX:-UsePerfData?)";
                return null;
            }
            Method longValue = Class.forName("sun.management.counter.LongCounter").getMethod("longValue");
            SafepointCounters counters0 = new SafepointCounters(management0, counters, name, count, sync, total,
                longValue);
            counters0.read(new long[3]); // fails here, not in the poller, on a JVM that shapes them otherwise
            counters0.nanosPerTick();
            return counters0;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            why[0] = "HotSpot's safepoint counters not readable (" + e + ")";
            return null;
        }
    }

    private static Map<String, Object> byName(Object list, Method name) throws ReflectiveOperationException {
        Map<String, Object> out = new java.util.HashMap<>();
        for (Object c : (List<?>) list) {
            out.put((String) name.invoke(c), c);
        }
        return out;
    }

    /** Fills {safepoints so far, their sync time, their whole time}, the times in HotSpot's ticks. */
    void read(long[] into) throws ReflectiveOperationException {
        into[0] = (Long) longValue.invoke(count);
        into[1] = (Long) longValue.invoke(syncTicks);
        into[2] = (Long) longValue.invoke(totalTicks);
    }

    /** Nanoseconds per HotSpot tick, or 0 while its clock frequency's counter is not there yet. */
    double nanosPerTick() throws ReflectiveOperationException {
        if (nanosPerTick == 0) {
            Object frequency = byName(counters.invoke(management, PATTERN), name).get("sun.os.hrt.frequency");
            long hz = frequency == null ? 0 : (Long) longValue.invoke(frequency);
            if (hz > 0) {
                nanosPerTick = 1e9 / hz;
            }
        }
        return nanosPerTick;
    }
}
