package io.stallscope.analyzer.analysis.holders;

import io.stallscope.analyzer.analysis.stacks.LockWaitSite;
import io.stallscope.analyzer.analysis.stacks.StackClassifier;
import io.stallscope.analyzer.model.Recording;
import io.stallscope.analyzer.model.SampleBlock;
import io.stallscope.analyzer.util.Parallel;
import io.stallscope.analyzer.util.Timing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The holder candidates of one lock site in one file: every sample inside the method that takes the lock and not
 * waiting there, so that attributing a wait costs a walk over its window rather than a pass over every thread.
 * One part per sample block, its candidates bucketed by time slot: a window visits the slots it overlaps. Within
 * a slot candidates are in no particular order, which is enough: attribution only sums over a window.
 */
final class SiteIndex {
    /**
     * A method on most stacks (a thread's run loop) says nothing about who holds a lock, and indexing it would
     * copy the whole recording: waits there are attributed by walking the threads instead.
     */
    final boolean tooBroad;
    /** Parts by their first sample's time; blocks of one file overlap only in a jfrsync file. */
    final Part[] parts;
    /** The longest time a part spans: how far back from a window a part that overlaps it can start. */
    final long longestPart;

    private SiteIndex(boolean tooBroad, Part[] parts) {
        this.tooBroad = tooBroad;
        this.parts = parts;
        long longest = 0;
        for (Part p : parts) longest = Math.max(longest, p.last - p.first);
        this.longestPart = longest;
    }

    /** The last part starting at or before {@code t}, or -1. */
    int lastStartingBy(long t) {
        int lo = 0;
        int hi = parts.length - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (parts[mid].first <= t) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** One block's candidates, bucketed by slot of {@code width} nanoseconds from {@code first}. */
    static final class Part {
        final long first;
        final long last;
        final long width;
        /** Slot s holds candidates [slotStart[s], slotStart[s + 1]). */
        final int[] slotStart;
        final long[] time;
        final int[] thread;
        final int[] stack;
        final char[] weight;

        Part(long first, long last, long width, int[] slotStart, int n) {
            this.first = first;
            this.last = last;
            this.width = width;
            this.slotStart = slotStart;
            time = new long[n];
            thread = new int[n];
            stack = new int[n];
            weight = new char[n];
        }

        /** The slot of time {@code t}, clamped to the part. */
        int slot(long t) {
            if (t <= first) return 0;
            long s = (t - first) / width;
            return (int) Math.min(s, slotStart.length - 2);
        }
    }

    /**
     * Builds the index of every site (a method that takes a lock) in every file, on a few threads, one sample block
     * at a time: a pass to count each site's candidates (the file's totals decide the too-broad sites), then a pass to
     * find them and a pass over them to place them by time slot.
     *
     * @param methods the site methods waits will be attributed at
     * @return per file, per method
     */
    static Map<Integer, Map<String, SiteIndex>> build(Recording rec, StackClassifier classifier, long[] intervals,
                                                      Collection<String> methods) {
        Map<Integer, Map<String, SiteIndex>> result = new HashMap<>();
        List<SampleBlock> blocks = rec.samples.blocks();
        List<String> siteList = new ArrayList<>(methods);
        if (siteList.isEmpty() || blocks.isEmpty()) return result;
        int[][] sitesOf = candidateSites(rec, classifier, siteList);
        int sites = siteList.size();
        int[] fileOf = new int[blocks.size()];
        for (int b = 0; b < blocks.size(); b++) {
            SampleBlock block = blocks.get(b);
            fileOf[b] = block.threads() == 0 ? -1 : rec.threads.get(block.threadId(0)).file();
        }
        // Pass 1: each block's candidates per site.
        long[][] counts = new long[blocks.size()][];
        run(blocks.size(), b -> {
            if (fileOf[b] < 0) return;
            long[] n = new long[sites];
            SampleBlock block = blocks.get(b);
            for (int i = 0; i < block.size(); i++) {
                for (int k : sitesOf[block.stack(i)]) n[k]++;
            }
            counts[b] = n;
        });
        int files = rec.files.size();
        long[][] perFile = new long[files][sites];
        long[] samplesInFile = new long[files];
        for (int b = 0; b < blocks.size(); b++) {
            if (fileOf[b] < 0) continue;
            samplesInFile[fileOf[b]] += blocks.get(b).size();
            for (int k = 0; k < sites; k++) perFile[fileOf[b]][k] += counts[b][k];
        }
        boolean[][] broad = new boolean[files][sites];
        for (int f = 0; f < files; f++) {
            for (int k = 0; k < sites; k++) broad[f][k] = perFile[f][k] > 2_000_000 && perFile[f][k] > samplesInFile[f] / 4;
        }
        // Pass 2: each block's parts, but for the too broad sites.
        Part[][] parts = new Part[blocks.size()][];
        run(blocks.size(), b -> {
            if (fileOf[b] < 0) return;
            parts[b] = parts(blocks.get(b), sitesOf, counts[b], broad[fileOf[b]], intervals[fileOf[b]]);
        });
        if (Timing.enabled()) {
            long total = 0;
            StringBuilder broadOnes = new StringBuilder();
            for (int k = 0; k < sites; k++) {
                for (int f = 0; f < files; f++) {
                    total += perFile[f][k];
                    if (broad[f][k]) broadOnes.append(' ').append(siteList.get(k)).append('=').append(perFile[f][k]);
                }
            }
            System.err.println("analyzer: timing: site indexes: " + sites + " sites, " + total + " candidate samples"
                    + (broadOnes.length() == 0 ? "" : "; too broad to index:" + broadOnes));
        }
        for (int f = 0; f < files; f++) {
            Map<String, SiteIndex> ofFile = new HashMap<>();
            for (int k = 0; k < sites; k++) {
                List<Part> list = new ArrayList<>();
                for (int b = 0; b < blocks.size(); b++) {
                    if (fileOf[b] == f && parts[b][k] != null) list.add(parts[b][k]);
                }
                list.sort((x, y) -> Long.compare(x.first, y.first));
                ofFile.put(siteList.get(k), new SiteIndex(broad[f][k], list.toArray(new Part[0])));
            }
            result.put(f, ofFile);
        }
        return result;
    }

    /** Per stack id: the sites it is a holder candidate for (inside the method, not waiting for a lock taken there). */
    private static int[][] candidateSites(Recording rec, StackClassifier classifier, List<String> siteList) {
        Map<String, Integer> siteIndex = new HashMap<>();
        for (int k = 0; k < siteList.size(); k++) siteIndex.put(siteList.get(k), k);
        int stacks = rec.stacks.size();
        int[][] sitesOf = new int[stacks][];
        int[] none = new int[0];
        int[] at = new int[siteList.size()];
        Arrays.fill(at, -1);
        int[] found = new int[siteList.size()];
        for (int s = 0; s < stacks; s++) {
            int[] frames = rec.stacks.frames(s);
            int n = 0;
            for (int i = 0; i < frames.length; i++) {
                Integer k = siteIndex.get(rec.frames.name(frames[i]));
                if (k != null && at[k] < 0) {
                    at[k] = i;
                    found[n++] = k;
                }
            }
            LockWaitSite waiting = n == 0 ? null : classifier.lockWait(s);
            int kept = 0;
            for (int j = 0; j < n; j++) {
                int k = found[j];
                // Waiting for a lock taken at or above the method: a waiter there, not a holder.
                if (waiting == null || waiting.siteFrame() < at[k]) found[kept++] = k;
                // Cleared here, for every site found, kept or not: a site left marked would never be found in a
                // later stack, and whether it was depended on the order stacks were first seen in (a flaky holder).
                at[k] = -1;
            }
            sitesOf[s] = kept == 0 ? none : Arrays.copyOf(found, kept);
            // Sites in ascending order, so that a block's parts are filled in a fixed order.
            Arrays.sort(sitesOf[s]);
        }
        return sitesOf;
    }

    private static Part[] parts(SampleBlock block, int[][] sitesOf, long[] counts, boolean[] broad, long interval) {
        int sites = counts.length;
        Part[] parts = new Part[sites];
        // Each kept site's candidates, as positions in the block (thread by thread), then bucketed by slot.
        int[][] found = new int[sites][];
        int[] n = new int[sites];
        boolean any = false;
        for (int k = 0; k < sites; k++) {
            if (counts[k] > 0 && !broad[k]) {
                found[k] = new int[(int) counts[k]];
                any = true;
            }
        }
        if (!any) return parts;
        int[] threadOf = new int[block.size()];
        for (int r = 0; r < block.threads(); r++) {
            int thread = block.threadId(r);
            for (int i = block.threadFrom(r); i < block.threadTo(r); i++) {
                int[] ks = sitesOf[block.stack(i)];
                if (ks.length == 0) continue;
                threadOf[i] = thread;
                for (int k : ks) {
                    if (found[k] != null) found[k][n[k]++] = i;
                }
            }
        }
        long first = block.firstTime();
        long span = block.lastTime() - first;
        for (int k = 0; k < sites; k++) {
            int[] pos = found[k];
            if (pos == null) continue;
            // Slots about an interval wide, so that a window covers a few; never many more slots than candidates.
            long width = Math.max(Math.max(1, interval), span / Math.max(1, pos.length / 2) + 1);
            int slots = (int) (span / width) + 1;
            int[] start = new int[slots + 1];
            for (int i : pos) start[(int) ((block.time(i) - first) / width) + 1]++;
            for (int sl = 1; sl <= slots; sl++) start[sl] += start[sl - 1];
            int[] next = Arrays.copyOf(start, slots);
            Part p = parts[k] = new Part(first, block.lastTime(), width, start, pos.length);
            for (int i : pos) {
                long t = block.time(i);
                int at = next[(int) ((t - first) / width)]++;
                p.time[at] = t;
                p.thread[at] = threadOf[i];
                p.stack[at] = block.stack(i);
                p.weight[at] = (char) block.weight(i);
            }
        }
        return parts;
    }

    private interface BlockTask {
        void run(int block);
    }

    private static void run(int blocks, BlockTask task) {
        try {
            Parallel.run(blocks, () -> null, (w, b) -> task.run(b));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
