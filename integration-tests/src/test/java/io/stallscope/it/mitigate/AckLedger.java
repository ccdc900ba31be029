package io.stallscope.it.mitigate;

import org.apache.kafka.clients.producer.RecordMetadata;

import java.util.Arrays;

/**
 * Where the cluster put each acknowledged record: record n's partition and offset, as the producer's
 * acknowledgement said. What a replica serves later is checked against it offset by offset, so a record
 * lost, served twice, out of order or replaced by another at its offset each shows.
 */
final class AckLedger {
    static final long NONE = -1;

    private long[] placed = new long[1 << 16];
    private long size;

    AckLedger() {
        Arrays.fill(placed, NONE);
    }

    /** Called from the producer's callback when record {@code seq} was acknowledged. */
    synchronized void ack(long seq, RecordMetadata md) {
        if (md.partition() >= 256) {
            throw new IllegalArgumentException("partition " + md.partition() + ": the ledger keeps up to 256");
        }
        while (seq >= placed.length) {
            int old = placed.length;
            placed = Arrays.copyOf(placed, old * 2);
            Arrays.fill(placed, old, placed.length, NONE);
        }
        placed[(int) seq] = encode(md.partition(), md.offset());
        size = Math.max(size, seq + 1);
    }

    /** Every record acknowledged until now: by sequence number, {@link #encode}d, {@link #NONE} if not acknowledged. */
    synchronized Acked snapshot() {
        return new Acked(Arrays.copyOf(placed, (int) size));
    }

    static long encode(int partition, long offset) {
        return offset << 8 | partition;
    }

    /** The records acknowledged at one moment. */
    record Acked(long[] placed) {
        long count() {
            return Arrays.stream(placed).filter(p -> p != NONE).count();
        }

        /** The highest acknowledged offset of each of {@code partitions} partitions, -1 for none. */
        long[] lastOffsets(int partitions) {
            long[] last = new long[partitions];
            Arrays.fill(last, -1);
            for (long p : placed) {
                if (p != NONE) {
                    int partition = (int) (p & 0xff);
                    last[partition] = Math.max(last[partition], p >>> 8);
                }
            }
            return last;
        }
    }
}
