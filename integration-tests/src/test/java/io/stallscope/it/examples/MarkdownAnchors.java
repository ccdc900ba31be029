package io.stallscope.it.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** Whether a {@code path#anchor} link points at a file and one of its headings (GitHub's anchor rules). */
final class MarkdownAnchors {
    private MarkdownAnchors() {
    }

    static boolean exists(Path root, String link) throws IOException {
        int hash = link.indexOf('#');
        Path file = root.resolve(hash < 0 ? link : link.substring(0, hash));
        if (!Files.isRegularFile(file)) {
            return false;
        }
        if (hash < 0) {
            return true;
        }
        String anchor = link.substring(hash + 1);
        return Files.readAllLines(file).stream().filter(l -> l.startsWith("#"))
            .anyMatch(l -> slug(l.replaceFirst("^#+\\s*", "")).equals(anchor));
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
    static String slug(String heading) {
        return heading.trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }
}
