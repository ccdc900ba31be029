package io.stallscope.analyzer.analysis;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The analysis is a chain, and its packages say so: what a stack shows ({@code stacks}), who waited on what
 * ({@code waits}), who held the lock and what it was doing ({@code holders}), what that cost the clients
 * ({@code findings}), what the reports show ({@code view}). A step uses the steps before it, never one after it;
 * the steps before the findings do not use the top package either (the API and the orchestrator that runs them).
 * Before them all, {@code read -> model}: the reader and the model know nothing of what reads them.
 */
class PackagesTest {
    private static final Path ANALYSIS = Path.of("src", "main", "java", "io", "stallscope", "analyzer", "analysis");
    private static final List<String> CHAIN = List.of("stacks", "waits", "holders", "findings", "view");
    private static final Pattern USE = Pattern.compile("io\\.stallscope\\.analyzer\\.analysis\\.(?:([a-z]\\w*)\\.)?[A-Z]");

    @Test
    void eachStepUsesOnlyTheStepsBeforeIt() throws IOException {
        List<String> backwards = new ArrayList<>();
        for (int i = 0; i < CHAIN.size(); i++) {
            String step = CHAIN.get(i);
            for (Path f : sources(ANALYSIS.resolve(step))) {
                Matcher m = USE.matcher(Files.readString(f));
                while (m.find()) {
                    String used = m.group(1);
                    if (used == null) {
                        // the top package: Analysis, Finding, Options, KafkaThreads; the findings and the view read them
                        if (i < CHAIN.indexOf("findings")) backwards.add(step + "/" + f.getFileName() + " uses the top package");
                    } else if (!CHAIN.contains(used) || CHAIN.indexOf(used) > i) {
                        backwards.add(step + "/" + f.getFileName() + " uses " + used);
                    }
                }
            }
        }
        assertThat(backwards).isEmpty();
    }

    @Test
    void theReaderAndTheModelKnowNothingOfTheAnalysis() throws IOException {
        List<String> uses = new ArrayList<>();
        for (String pkg : List.of("read", "model", "util")) {
            for (Path f : sources(ANALYSIS.resolveSibling(pkg))) {
                if (Pattern.compile("io\\.stallscope\\.analyzer\\.(analysis|render|cli)\\.").matcher(Files.readString(f)).find()) {
                    uses.add(pkg + "/" + f.getFileName());
                }
            }
        }
        assertThat(uses).isEmpty();
    }

    @Test
    void theChainIsEveryPackageOfTheAnalysis() throws IOException {
        try (Stream<Path> dirs = Files.list(ANALYSIS)) {
            assertThat(dirs.filter(Files::isDirectory).map(d -> d.getFileName().toString()))
                    .containsExactlyInAnyOrderElementsOf(CHAIN);
        }
    }

    private static List<Path> sources(Path dir) throws IOException {
        assertThat(dir).isDirectory();
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
    }
}
