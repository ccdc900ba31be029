package io.stallscope.agent.report;

import io.stallscope.agent.model.OpKind;

import java.util.ArrayList;
import java.util.List;

/** Slow ops that ended inside one still open on the same thread, in the order they ended (innermost first). */
final class InnerOps {
    final List<Integer> ops = new ArrayList<>(2);
    final List<Long> durations = new ArrayList<>(2);

    InnerOps add(int op, long durationNanos) {
        ops.add(op);
        durations.add(durationNanos);
        return this;
    }

    int longest() {
        int best = 0;
        for (int i = 1; i < durations.size(); i++) {
            if (durations.get(i) > durations.get(best)) {
                best = i;
            }
        }
        return best;
    }

    void remove(int i) {
        ops.remove(i);
        durations.remove(i);
    }

    /** "snapshot_take:215.003ms,snapshot_write:212.503ms", the enclosing ones first; null when empty. */
    String describe() {
        if (ops.isEmpty()) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = ops.size() - 1; i >= 0; i--) {
            sb.append(sb.length() == 0 ? "" : ",").append(OpKind.name(ops.get(i))).append(':')
                .append(SlowOpLog.millis(durations.get(i))).append("ms");
        }
        return sb.toString();
    }
}
