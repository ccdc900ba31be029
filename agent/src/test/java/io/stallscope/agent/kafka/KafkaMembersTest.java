package io.stallscope.agent.kafka;

import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDefinition;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The members the agent reads by reflection ({@link KafkaMembers}) exist, with a usable type, in the classes of
 * every supported version that the catalog's entries find: the segment's size(), the file records' slice.
 */
class KafkaMembersTest {
    @Test
    void everyVersionHasTheMembersTheAgentReads() throws Exception {
        List<String> missing = new ArrayList<>();
        for (String version : KafkaJars.supported()) {
            try (KafkaJars jars = KafkaJars.of(version)) {
                TypePool pool = jars.pool();
                TypeDescription segment = first(pool, KafkaTargets.SEGMENT_FLUSH.classes());
                if (segment == null || !hasMethod(segment, KafkaMembers.SEGMENT_SIZE, true)) {
                    missing.add(version + ": LogSegment." + KafkaMembers.SEGMENT_SIZE + "()");
                }
                TypeDescription records = first(pool, KafkaTargets.RECORDS_APPEND.classes());
                for (String m : new String[] {KafkaMembers.FILE_RECORDS_CHANNEL, KafkaMembers.FILE_RECORDS_FILE,
                    KafkaMembers.FILE_RECORDS_SIZE}) {
                    if (records == null || !hasMethod(records, m, false)) {
                        missing.add(version + ": FileRecords." + m + "()");
                    }
                }
                if (records == null || !hasField(records, KafkaMembers.FILE_RECORDS_START)) {
                    missing.add(version + ": FileRecords." + KafkaMembers.FILE_RECORDS_START);
                }
            }
        }
        assertThat(missing).as("members the agent reads by reflection, missing").isEmpty();
    }

    /**
     * roll-flush (2.8-3.6, every catalog version) reads the rolling log's lock, under which renameDir moves its
     * directory, and its LogDirFailureChannel (a method from 3.1, a field of Log before) of the class the
     * catalog's failure entry finds.
     */
    @Test
    void everyVersionRollFlushAppliesToHasTheLogsLockAndFailureChannel() throws Exception {
        List<String> missing = new ArrayList<>();
        for (String version : KafkaJars.catalog()) {
            if (KafkaReleases.compare(version, "3.7") >= 0) {
                continue;
            }
            try (KafkaJars jars = KafkaJars.of(version)) {
                TypePool pool = jars.pool();
                TypeDescription log = first(pool, KafkaTargets.ROLL_WITH_OPTION.classes());
                if (log == null) {
                    missing.add(version + ": no log class");
                    continue;
                }
                String channelType = new TargetResolver(pool, version).resolve(KafkaTargets.LOG_DIR_FAILURE)
                    .declaringClass();
                boolean lock = false;
                boolean channel = false;
                for (FieldDescription f : log.getDeclaredFields()) {
                    lock |= f.getName().equals(KafkaMembers.LOG_LOCK) && f.getType().represents(Object.class);
                    channel |= f.getName().equals(KafkaMembers.LOG_DIR_FAILURE_CHANNEL)
                        && f.getType().asErasure().getName().equals(channelType);
                }
                for (MethodDescription m : log.getDeclaredMethods()) {
                    channel |= m.getName().equals(KafkaMembers.LOG_DIR_FAILURE_CHANNEL) && m.isPublic()
                        && m.getParameters().isEmpty() && m.getReturnType().asErasure().getName().equals(channelType);
                }
                if (!lock) {
                    missing.add(version + ": " + log.getName() + "." + KafkaMembers.LOG_LOCK);
                }
                if (!channel) {
                    missing.add(version + ": " + log.getName() + "." + KafkaMembers.LOG_DIR_FAILURE_CHANNEL + " of type "
                        + channelType);
                }
            }
        }
        assertThat(missing).isEmpty();
    }

    private static TypeDescription first(TypePool pool, List<String> classes) {
        for (String c : classes) {
            TypePool.Resolution r = pool.describe(c);
            if (r.isResolved()) {
                return r.resolve();
            }
        }
        return null;
    }

    private static boolean hasMethod(TypeDescription type, String name, boolean numeric) {
        for (TypeDefinition t = type; t != null; t = t.getSuperClass()) {
            for (MethodDescription m : t.getDeclaredMethods()) {
                if (m.getName().equals(name) && m.getParameters().isEmpty() && m.isPublic() && !m.isStatic()
                    && (!numeric || m.getReturnType().represents(int.class) || m.getReturnType().represents(long.class))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean hasField(TypeDescription type, String name) {
        for (FieldDescription f : type.getDeclaredFields()) {
            if (f.getName().equals(name) && f.getType().represents(int.class)) {
                return true;
            }
        }
        return false;
    }
}
