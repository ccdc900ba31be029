package io.stallscope.analyzer.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RecordingTest {

    @Test
    void threadsSharingANameInOneFileAreToldApartByTheirIds() {
        Recording rec = new Recording();
        // A KRaft broker in combined mode: the broker's and the controller's handler pools name their threads alike.
        int broker = rec.thread(0, "data-plane-kafka-request-handler-4", 61, 4711);
        int controller = rec.thread(0, "data-plane-kafka-request-handler-4", 44, 4690);
        int osOnly = rec.thread(0, "GC task thread#", 0, 101);
        int osOnly2 = rec.thread(0, "GC task thread#", 0, 102);
        int alone = rec.thread(0, "kafka-scheduler-0", 30, 4600);
        int otherFile = rec.thread(1, "data-plane-kafka-request-handler-4", 61, 4711);

        rec.distinguishSharedNames(0);

        assertThat(rec.threadName(broker)).isEqualTo("data-plane-kafka-request-handler-4 #61");
        assertThat(rec.threadName(controller)).isEqualTo("data-plane-kafka-request-handler-4 #44");
        assertThat(rec.threadName(osOnly)).isEqualTo("GC task thread# tid 101");
        assertThat(rec.threadName(osOnly2)).isEqualTo("GC task thread# tid 102");
        assertThat(rec.threadName(alone)).isEqualTo("kafka-scheduler-0");
        // Threads of different files are different threads already; a name alone in its file keeps it.
        assertThat(rec.threadName(otherFile)).isEqualTo("data-plane-kafka-request-handler-4");
    }
}
