package io.stallscope.it.examples;

import io.stallscope.it.broker.HarnessDirs;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the repository's examples/ and docs/ are, seen from the integration-tests module. */
public final class Examples {
    private Examples() {
    }

    public static Path root() {
        Path root = HarnessDirs.target().getParent().getParent();
        if (!Files.isDirectory(root.resolve("examples"))) {
            throw new IllegalStateException("no examples/ under " + root);
        }
        return root;
    }

    public static Path file(String relative) {
        Path p = root().resolve("examples").resolve(relative);
        if (!Files.isRegularFile(p)) {
            throw new IllegalStateException("missing example file " + p);
        }
        return p;
    }
}
