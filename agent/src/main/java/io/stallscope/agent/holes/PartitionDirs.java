package io.stallscope.agent.holes;

/** Kafka's partition directory names: "orders-3", and "orders-3.UUID-delete" / "-future" / "-stray" for the ones set aside. */
public final class PartitionDirs {
    private PartitionDirs() {
    }

    /** "orders-3" for "orders-3" and "orders-3.8a1c...-delete"; null if the name is no partition directory. */
    public static String partitionOf(String dirName) {
        String name = dirName;
        int dot = name.lastIndexOf('.');
        if (dot > 0 && (name.endsWith("-delete") || name.endsWith("-future") || name.endsWith("-stray"))) {
            name = name.substring(0, dot);
        }
        int dash = name.lastIndexOf('-');
        if (dash <= 0 || dash == name.length() - 1 || !name.substring(dash + 1).matches("\\d+")) {
            return null;
        }
        return name;
    }

    /** The topic of a partition directory, or null. */
    public static String topicOf(String dirName) {
        String partition = partitionOf(dirName);
        return partition == null ? null : partition.substring(0, partition.lastIndexOf('-'));
    }
}
