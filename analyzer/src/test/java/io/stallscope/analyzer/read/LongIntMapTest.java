package io.stallscope.analyzer.read;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The pool-key map agrees with a HashMap on any keys, the one it uses to mark free slots included. */
class LongIntMapTest {
    @Test
    void agreesWithAHashMapThroughGrowthAndClear() {
        LongIntMap m = new LongIntMap();
        Map<Long, Integer> expected = new HashMap<>();
        SplittableRandom r = new SplittableRandom(19);
        long[] special = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, 1};
        for (int i = 0; i < 20_000; i++) {
            long key = i < special.length ? special[i] : i % 3 == 0 ? r.nextLong() : r.nextLong(5_000);
            m.put(key, i);
            expected.put(key, i);
        }
        assertThat(m.size()).isEqualTo(expected.size());
        expected.forEach((k, v) -> assertThat(m.get(k, -7)).as("key %d", k).isEqualTo(v));
        assertThat(m.get(5_000_000_123L, -7)).isEqualTo(-7);
        m.clear();
        assertThat(m.size()).isZero();
        assertThat(m.get(Long.MIN_VALUE, -7)).isEqualTo(-7);
        assertThat(m.get(0, -7)).isEqualTo(-7);
        m.put(Long.MIN_VALUE, 3);
        assertThat(m.get(Long.MIN_VALUE, -7)).isEqualTo(3);
        assertThat(m.size()).isEqualTo(1);
    }
}
