package io.stallscope.analyzer.analysis.findings;

import io.stallscope.analyzer.analysis.Finding;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Puts the findings that hurt a client first, the most harm first ({@link Harm#score}: request-path stall time
 * weighted by how many stalled at once); the rest keep their order after them. An operator reads the first finding
 * and stops there, so it must be the stall the producers felt, not a background flush that took longer.
 */
final class ClientFirstOrder {
    private ClientFirstOrder() {
    }

    static void sort(List<Finding> findings) {
        List<Finding> hurt = new ArrayList<>();
        List<Finding> rest = new ArrayList<>();
        for (Finding f : findings) (f.harm().hurt() ? hurt : rest).add(f);
        // stable: among equal harm, the order the findings came in (by impact) stands
        hurt.sort(Comparator.comparingDouble((Finding f) -> f.harm().score()).reversed());
        yieldGeneric(hurt);
        findings.clear();
        findings.addAll(hurt);
        findings.addAll(rest);
    }

    /**
     * The generic ranking of contended locks goes below every specific finding that explains a tenth of its harm or
     * more: those say what held the lock and what to fix (as among findings ranked by impact).
     */
    private static void yieldGeneric(List<Finding> hurt) {
        int g = -1;
        for (int i = 0; i < hurt.size(); i++) {
            if (hurt.get(i).kind().equals(Finding.CONTENDED_LOCKS)) g = i;
        }
        if (g < 0) return;
        Finding generic = hurt.remove(g);
        int at = g;
        for (int i = g; i < hurt.size(); i++) {
            if (hurt.get(i).harm().score() >= 0.10 * generic.harm().score()) at = i + 1;
        }
        hurt.add(at, generic);
    }
}
