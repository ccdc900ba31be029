package io.stallscope.it.mitigate;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a consumer is served of every partition of a topic from the log start, checked against the records
 * the cluster acknowledged ({@link AckLedger}): acknowledged records missing, offsets skipped (a record whose
 * offset is past the one expected, or a position that moved on with no record: a hole served as if it were
 * not there), records served twice, a partition's records out of order, and an acknowledged record's offset
 * holding another one. It reads each partition up to its last acknowledged offset and reports, rather than
 * waits forever, a partition that stops making progress.
 */
final class ServedLog {
    private ServedLog() {
    }

    /** What was served, against what was acknowledged. */
    record Check(long acked, long lost, long gaps, long offsetsSkipped, long duplicates, long outOfOrder,
                 long misplaced, String gapList, String stalled) {
        boolean clean() {
            return lost == 0 && gaps == 0 && duplicates == 0 && outOfOrder == 0 && misplaced == 0 && stalled.isEmpty();
        }

        String describe() {
            return String.format(Locale.ROOT, "acked %d, acked lost %d, gaps %d (%d offsets skipped), duplicates %d,"
                + " out of order %d, misplaced %d%s%s", acked, lost, gaps, offsetsSkipped, duplicates, outOfOrder, misplaced,
                gapList.isEmpty() ? "" : ", gaps served: " + gapList, stalled.isEmpty() ? "" : ", read stalled: " + stalled);
        }
    }

    /** Reads {@code partitions} partitions of {@code topic} through {@code consumerConfig} and checks them against {@code acked}. */
    static Check read(Map<String, Object> consumerConfig, String topic, int partitions, AckLedger.Acked acked,
                      Duration stall) {
        long[] last = acked.lastOffsets(partitions);
        long[] expected = new long[partitions]; // the next offset a hole-free log serves
        long[] lastSeq = new long[partitions];
        java.util.Arrays.fill(lastSeq, -1);
        BitSet seen = new BitSet();
        long gaps = 0;
        long skipped = 0;
        long duplicates = 0;
        long outOfOrder = 0;
        long misplaced = 0;
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        Map<String, Object> config = new java.util.HashMap<>(consumerConfig);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        StringBuilder stalled = new StringBuilder();
        List<String> gapList = new ArrayList<>(); // the first 10, for the report
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long lastProgress = System.nanoTime();
            while (!done(consumer, tps, last)) {
                if (System.nanoTime() - lastProgress > stall.toNanos()) {
                    Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
                    for (TopicPartition tp : tps) {
                        long at = consumer.position(tp);
                        if (at <= last[tp.partition()]) {
                            stalled.append(String.format(Locale.ROOT, "%s at offset %d of %d acknowledged, high watermark %d; ",
                                tp, at, last[tp.partition()] + 1, end.get(tp)));
                        }
                    }
                    break;
                }
                var records = consumer.poll(Duration.ofMillis(500));
                if (!records.isEmpty()) {
                    lastProgress = System.nanoTime();
                }
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    int p = r.partition();
                    long seq = SequencedProducer.seqOf(r.value());
                    if (r.offset() > expected[p]) {
                        if (gapList.size() < 10) {
                            gapList.add(String.format(Locale.ROOT, "partition %d offset %d after %d", p, r.offset(), expected[p] - 1));
                        }
                        gaps++;
                        skipped += r.offset() - expected[p];
                    }
                    expected[p] = r.offset() + 1;
                    if (seen.get((int) seq)) {
                        duplicates++;
                    }
                    seen.set((int) seq);
                    if (seq <= lastSeq[p]) {
                        outOfOrder++;
                    }
                    lastSeq[p] = Math.max(lastSeq[p], seq);
                    long placed = seq < acked.placed().length ? acked.placed()[(int) seq] : AckLedger.NONE;
                    if (placed != AckLedger.NONE && placed != AckLedger.encode(p, r.offset())) {
                        misplaced++;
                    }
                }
                for (TopicPartition tp : tps) {
                    // a position that moved past the last record served skipped offsets without serving them
                    long at = consumer.position(tp);
                    if (at > expected[tp.partition()]) {
                        if (gapList.size() < 10) {
                            gapList.add(String.format(Locale.ROOT, "partition %d position %d after %d with no record",
                                tp.partition(), at, expected[tp.partition()] - 1));
                        }
                        gaps++;
                        skipped += at - expected[tp.partition()];
                        expected[tp.partition()] = at;
                    }
                }
            }
        }
        long lost = 0;
        long[] placed = acked.placed();
        for (int seq = 0; seq < placed.length; seq++) {
            if (placed[seq] != AckLedger.NONE && !seen.get(seq)) {
                lost++;
            }
        }
        return new Check(acked.count(), lost, gaps, skipped, duplicates, outOfOrder, misplaced, String.join("; ", gapList), stalled.toString().trim());
    }

    private static boolean done(KafkaConsumer<?, ?> consumer, List<TopicPartition> tps, long[] last) {
        for (TopicPartition tp : tps) {
            if (consumer.position(tp) <= last[tp.partition()]) {
                return false;
            }
        }
        return true;
    }
}
