package io.stallscope.analyzer.util;

/**
 * Sorts an array of indexes by a long key of each, stably, without boxing: a block's samples into time order, and
 * millions of lock events, which as {@code Integer[]} with a comparator cost a boxed object and a lambda call per
 * comparison.
 */
public final class IndexSort {
    private IndexSort() {
    }

    /** The key of index {@code i}. */
    public interface Key {
        long of(int i);
    }

    /** Sorts {@code idx} in place by {@code key}, ties in their given order. */
    public static void stable(int[] idx, Key key) {
        long[] k = new long[idx.length];
        for (int i = 0; i < idx.length; i++) k[i] = key.of(idx[i]);
        sortByKey(idx, k, idx.length);
    }

    /** Runs in order that are merged straight away: five passes of merging them at most. */
    private static final int FEW_RUNS = 32;
    /** Runs this long on average are merged straight away, however many: a JDK thread's events have ~500 a run. */
    private static final int LONG_RUNS = 64;

    /**
     * Stable sort of {@code order} (and {@code key}, which runs parallel to it) by key. A few runs, or long ones (a
     * thread's waits from chunks whose times overlap, a JDK thread's events around each flush), are merged in
     * log2(runs) passes, each copying whole what does not overlap the other run. Many short runs, nearly sorted (a
     * profiler's buffers flushed a little out of order), go by insertion sort, in place, which gives up for a merge of
     * the runs it leaves once it has moved a few elements per element. Insertion first for long runs spent that
     * budget in moves before giving up, on a JDK thread's file events.
     */
    public static void sortByKey(int[] order, long[] key, int n) {
        int runs = runs(key, n);
        if (runs <= 1) return;
        if (runs <= FEW_RUNS || n / runs >= LONG_RUNS) {
            mergeRuns(order, key, n, runs);
            return;
        }
        long budget = 16L * n;
        for (int i = 1; i < n; i++) {
            long k = key[i];
            if (key[i - 1] <= k) continue;
            int v = order[i];
            int j = i - 1;
            while (j >= 0 && key[j] > k) {
                key[j + 1] = key[j];
                order[j + 1] = order[j];
                j--;
                budget--;
            }
            key[j + 1] = k;
            order[j + 1] = v;
            if (budget < 0) {
                mergeRuns(order, key, n, runs(key, n));
                return;
            }
        }
    }

    /** How many ascending runs (equal keys continue a run) {@code key[0, n)} is made of. */
    private static int runs(long[] key, int n) {
        int runs = n == 0 ? 0 : 1;
        for (int i = 1; i < n; i++) {
            if (key[i] < key[i - 1]) runs++;
        }
        return runs;
    }

    /** Merges neighbouring runs pairwise until one is left: log2(runs) passes, the left run first on ties. */
    private static void mergeRuns(int[] order, long[] key, int n, int runs) {
        int[] bounds = new int[runs + 1];
        int r = 1;
        for (int i = 1; i < n; i++) {
            if (key[i] < key[i - 1]) bounds[r++] = i;
        }
        bounds[runs] = n;
        int[] o1 = order;
        long[] k1 = key;
        int[] o2 = new int[n];
        long[] k2 = new long[n];
        while (runs > 1) {
            int merged = 0;
            for (int p = 0; p < runs; p += 2) {
                int lo = bounds[p];
                if (p + 1 == runs) {
                    // The odd run out goes to the next pass as it is.
                    System.arraycopy(o1, lo, o2, lo, n - lo);
                    System.arraycopy(k1, lo, k2, lo, n - lo);
                } else {
                    merge(o1, k1, o2, k2, lo, bounds[p + 1], bounds[p + 2]);
                }
                bounds[merged++] = lo;
            }
            bounds[merged] = n;
            runs = merged;
            int[] o = o1;
            o1 = o2;
            o2 = o;
            long[] k = k1;
            k1 = k2;
            k2 = k;
        }
        if (o1 != order) {
            System.arraycopy(o1, 0, order, 0, n);
            System.arraycopy(k1, 0, key, 0, n);
        }
    }

    /**
     * Merges [lo, mid) and [mid, hi) of the first arrays into the same range of the second ones. What of the left run
     * comes before all of the right one, and what of the right run comes after all of the left one, is copied whole,
     * found by binary search: a JFR thread's events come in runs that overlap only at their ends (those committed
     * around a flush are written a second later), and comparing them one by one made sorting a holder's I/O events
     * the biggest part of indexing them.
     */
    private static void merge(int[] order, long[] key, int[] toOrder, long[] toKey, int lo, int mid, int hi) {
        // Left elements no greater than the right run's first go first (left first on ties).
        int a = upperBound(key, lo, mid, key[mid]);
        System.arraycopy(order, lo, toOrder, lo, a - lo);
        System.arraycopy(key, lo, toKey, lo, a - lo);
        // Right elements no less than the left run's last go last, after it (left first on ties).
        int rightEnd = lowerBound(key, mid, hi, key[mid - 1]);
        System.arraycopy(order, rightEnd, toOrder, rightEnd, hi - rightEnd);
        System.arraycopy(key, rightEnd, toKey, rightEnd, hi - rightEnd);
        hi = rightEnd;
        int b = mid;
        int k = a;
        while (a < mid && b < hi) {
            if (key[b] < key[a]) {
                toOrder[k] = order[b];
                toKey[k++] = key[b++];
            } else {
                toOrder[k] = order[a];
                toKey[k++] = key[a++];
            }
        }
        System.arraycopy(order, a, toOrder, k, mid - a);
        System.arraycopy(key, a, toKey, k, mid - a);
        k += mid - a;
        System.arraycopy(order, b, toOrder, k, hi - b);
        System.arraycopy(key, b, toKey, k, hi - b);
    }

    /** The first index in [lo, hi) of sorted {@code key} whose key is greater than {@code k} ({@code hi} if none). */
    private static int upperBound(long[] key, int lo, int hi, long k) {
        while (lo < hi) {
            int m = (lo + hi) >>> 1;
            if (key[m] <= k) lo = m + 1;
            else hi = m;
        }
        return lo;
    }

    /** The first index in [lo, hi) of sorted {@code key} whose key is at least {@code k} ({@code hi} if none). */
    private static int lowerBound(long[] key, int lo, int hi, long k) {
        while (lo < hi) {
            int m = (lo + hi) >>> 1;
            if (key[m] < k) lo = m + 1;
            else hi = m;
        }
        return lo;
    }
}
