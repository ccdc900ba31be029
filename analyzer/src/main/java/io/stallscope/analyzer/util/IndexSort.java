package io.stallscope.analyzer.util;

/**
 * Sorts an array of indexes by a long key of each, stably, without boxing: millions of lock events put in time order
 * as {@code Integer[]} with a comparator cost a boxed object and a lambda call per comparison.
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
        int n = idx.length;
        if (n < 2) return;
        long[] k = new long[n];
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            k[i] = key.of(idx[i]);
            sorted &= i == 0 || k[i - 1] <= k[i];
        }
        if (sorted) return;
        int[] ix = idx;
        int[] ix2 = new int[n];
        long[] k2 = new long[n];
        // Bottom-up merge sort over (key, index) pairs, runs of 1, 2, 4...; a merge takes the left one on ties.
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int a = lo, b = mid, o = lo;
                while (a < mid && b < hi) {
                    if (k[b] < k[a]) {
                        k2[o] = k[b];
                        ix2[o++] = ix[b++];
                    } else {
                        k2[o] = k[a];
                        ix2[o++] = ix[a++];
                    }
                }
                System.arraycopy(k, a, k2, o, mid - a);
                System.arraycopy(ix, a, ix2, o, mid - a);
                o += mid - a;
                System.arraycopy(k, b, k2, o, hi - b);
                System.arraycopy(ix, b, ix2, o, hi - b);
            }
            long[] tk = k;
            k = k2;
            k2 = tk;
            int[] ti = ix;
            ix = ix2;
            ix2 = ti;
        }
        if (ix != idx) System.arraycopy(ix, 0, idx, 0, n);
    }
}
