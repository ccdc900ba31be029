package io.stallscope.it.slowdisk;

/**
 * One call the shim matched, as it logged it: the call, how long it was delayed, how many bytes of
 * the range were not resident, the thread (id and the first 15 characters of its name) and the path.
 */
public record ShimCall(String call, double delayMs, long coldBytes, long tid, String thread, String path) {

    static ShimCall parse(String line) {
        String[] f = line.split(" ", 5);
        // the thread's name may hold spaces ("Attach Listener"); the path starts at the first " /" after it
        int path = f.length < 5 ? -1 : f[4].indexOf(" /");
        if (path < 0) {
            return null; // a line cut by a kill
        }
        try {
            return new ShimCall(f[0], Double.parseDouble(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                f[4].substring(0, path), f[4].substring(path + 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    public boolean delayed() {
        return delayMs > 0;
    }
}
