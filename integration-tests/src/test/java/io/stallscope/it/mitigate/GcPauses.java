package io.stallscope.it.mitigate;

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.NotificationListener;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import java.util.ArrayList;
import java.util.List;

/**
 * Every garbage collection a JVM reports (its GarbageCollector MBeans' notifications, this JVM's or a
 * broker's over JMX), with the time it was received here, so a window's collections can be counted.
 * Concurrent cycles (G1's "Concurrent" collector) are not pauses and are left out.
 */
final class GcPauses implements NotificationListener {
    /** One collection: when it was received (System.nanoTime here) and how long it took. */
    record Pause(long receivedAt, String name, double ms) {
    }

    private final List<Pause> pauses = new ArrayList<>();

    static GcPauses listenTo(MBeanServerConnection jvm) throws Exception {
        GcPauses gc = new GcPauses();
        for (ObjectName n : jvm.queryNames(new ObjectName("java.lang:type=GarbageCollector,*"), null)) {
            jvm.addNotificationListener(n, gc, null, null);
        }
        return gc;
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        if (info.getGcName().contains("Concurrent")) {
            return;
        }
        synchronized (pauses) {
            pauses.add(new Pause(System.nanoTime(), info.getGcName(), info.getGcInfo().getDuration()));
        }
    }

    /** "count / total ms / max ms" of the collections received in [from, to). */
    String summary(long from, long to) {
        double total = 0;
        double max = 0;
        int count = 0;
        synchronized (pauses) {
            for (Pause p : pauses) {
                if (p.receivedAt() >= from && p.receivedAt() < to) {
                    count++;
                    total += p.ms();
                    max = Math.max(max, p.ms());
                }
            }
        }
        return String.format("%d / %.0f / %.0f", count, total, max);
    }
}
