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

    /**
     * Stable sort of {@code order} (and {@code key}, which runs parallel to it) by key. Nearly sorted runs go by
     * insertion sort, which gives up for a merge sort once it has moved a few elements per element.
     */
    public static void sortByKey(int[] order, long[] key, int n) {
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
                mergeSort(order, key, n);
                return;
            }
        }
    }

    private static void mergeSort(int[] order, long[] key, int n) {
        int[] o2 = new int[n];
        long[] k2 = new long[n];
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int a = lo;
                int b = mid;
                int k = lo;
                while (a < mid && b < hi) {
                    if (key[b] < key[a]) {
                        o2[k] = order[b];
                        k2[k++] = key[b++];
                    } else {
                        o2[k] = order[a];
                        k2[k++] = key[a++];
                    }
                }
                while (a < mid) {
                    o2[k] = order[a];
                    k2[k++] = key[a++];
                }
                while (b < hi) {
                    o2[k] = order[b];
                    k2[k++] = key[b++];
                }
            }
            System.arraycopy(o2, 0, order, 0, n);
            System.arraycopy(k2, 0, key, 0, n);
        }
    }
}
