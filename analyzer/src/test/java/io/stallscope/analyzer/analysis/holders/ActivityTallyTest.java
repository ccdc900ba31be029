package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.analysis.stacks.IoOp;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The array tally against the maps it replaced (kept here as the oracle): the same stack, system call and "any stack
 * in it" answers on random tallies, ties included, and again after a reset.
 */
class ActivityTallyTest {
    /** The map-based tally as it was before 2026-11-28, verbatim but for its name. */
    static final class MapTally {
        final Map<Integer, Long> byStack = new HashMap<>();
        final Map<IoOp, Long> byOp = new HashMap<>();
        final Map<Integer, IoOp> stackOp = new HashMap<>();
        long weight;

        void add(int stack, long w, IoOp op) {
            weight += w;
            stackOp.put(stack, op);
            byStack.merge(stack, w, Long::sum);
            if (op != IoOp.NONE) byOp.merge(op, w, Long::sum);
        }

        boolean hasStackIn(IoOp op) {
            return byStack.keySet().stream().anyMatch(k -> stackOp.get(k) == op);
        }

        int dominantStack(IoOp op) {
            boolean any = byStack.keySet().stream().anyMatch(k -> stackOp.get(k) == op);
            return byStack.entrySet().stream().filter(e -> !any || stackOp.get(e.getKey()) == op).max(Map.Entry.<Integer, Long>comparingByValue()
                    .thenComparing(Map.Entry::getKey, Comparator.reverseOrder())).map(Map.Entry::getKey).orElse(0);
        }

        IoOp op(IoOp recorded) {
            return byOp.entrySet().stream().filter(e -> e.getKey().storage())
                    .max(Map.Entry.<IoOp, Long>comparingByValue().thenComparing(Map.Entry::getKey))
                    .map(Map.Entry::getKey).orElse(recorded);
        }
    }

    @Test
    void answersAsTheMapsDidOnRandomTallies() {
        Random random = new Random(42);
        IoOp[] ops = IoOp.values();
        HolderAttributor.ActivityTally tally = new HolderAttributor.ActivityTally();
        for (int round = 0; round < 20_000; round++) {
            MapTally oracle = new MapTally();
            tally.reset();
            // Few stacks and weights from a small range: ties between stacks and between calls are common.
            int stacksSeen = 1 + random.nextInt(round % 3 == 0 ? 3 : 24);
            IoOp[] opOfStack = new IoOp[stacksSeen];
            for (int s = 0; s < stacksSeen; s++) opOfStack[s] = ops[random.nextInt(ops.length)];
            int adds = random.nextInt(30);
            for (int i = 0; i < adds; i++) {
                int stack = random.nextInt(stacksSeen);
                long w = (1 + random.nextInt(3)) * (random.nextBoolean() ? 4L : 1L);
                oracle.add(stack, w, opOfStack[stack]);
                tally.add(stack, w, opOfStack[stack]);
            }
            assertThat(tally.weight).isEqualTo(oracle.weight);
            for (IoOp op : ops) {
                assertThat(tally.hasStackIn(op)).as("round %d, hasStackIn(%s)", round, op).isEqualTo(oracle.hasStackIn(op));
                assertThat(tally.dominantStack(op)).as("round %d, dominantStack(%s)", round, op).isEqualTo(oracle.dominantStack(op));
                assertThat(tally.op(op)).as("round %d, op(%s)", round, op).isEqualTo(oracle.op(op));
            }
        }
    }
}
