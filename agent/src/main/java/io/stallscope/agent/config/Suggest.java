package io.stallscope.agent.config;

/** Finds the nearest valid name to a mistyped one, for "did you mean" hints. */
final class Suggest {
    private Suggest() {
    }

    static String nearest(String wrong, Iterable<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : candidates) {
            int d = distance(wrong.toLowerCase(), candidate);
            if (d < bestDistance) {
                bestDistance = d;
                best = candidate;
            }
        }
        // a suggestion further away than this is noise, not help
        return bestDistance <= Math.max(2, wrong.length() / 3) ? best : null;
    }

    /** Levenshtein distance. */
    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
