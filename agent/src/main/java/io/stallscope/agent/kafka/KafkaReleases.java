package io.stallscope.agent.kafka;

/** Compares Kafka version strings ("3.9.2", "4.1.0-SNAPSHOT") by their numbers, without any Kafka class. */
public final class KafkaReleases {
    private KafkaReleases() {
    }

    /** Negative, zero or positive as a is older than, the same as or newer than b; "unknown" parses as nothing. */
    public static int compare(String a, String b) {
        int[] x = numbers(a);
        int[] y = numbers(b);
        for (int i = 0; i < 3; i++) {
            if (x[i] != y[i]) {
                return Integer.compare(x[i], y[i]);
            }
        }
        return 0;
    }

    /** Whether the string names a version at all (the agent may not find kafka-version.properties). */
    public static boolean isKnown(String version) {
        return version != null && !version.isEmpty() && Character.isDigit(version.charAt(0));
    }

    private static int[] numbers(String version) {
        int[] out = new int[3];
        String[] parts = version.split("[.-]");
        for (int i = 0; i < 3 && i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i]);
            } catch (NumberFormatException e) {
                break; // "SNAPSHOT", "rc1": the numbers before it decide
            }
        }
        return out;
    }
}
