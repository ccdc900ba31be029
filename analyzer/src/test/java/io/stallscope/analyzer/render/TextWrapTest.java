package io.stallscope.analyzer.render;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/** Folded lines fit the width, break between frames, and lose no text. */
class TextWrapTest {
    @Test
    void aStackFoldsBetweenFramesAndKeepsEveryFrame() {
        String stack = IntStream.range(0, 10).mapToObj(i -> "org.apache.kafka.storage.internals.log.LogSegment.method" + i + ":" + (100 + i))
                .collect(Collectors.joining(" <- "));
        List<String> lines = TextWrap.wrap("      - ", "        ", "holder h in fsync(2): " + stack, 100);
        assertThat(lines).hasSizeGreaterThan(4).allMatch(l -> l.length() <= 100);
        assertThat(lines.subList(1, lines.size())).allMatch(l -> l.startsWith("        <- "));
        assertThat(String.join(" ", lines).replaceAll("\\s+", " ").trim()).isEqualTo(("- holder h in fsync(2): " + stack));
    }

    @Test
    void aShortLineIsLeftAndAWordLongerThanTheWidthIsNotCut() {
        assertThat(TextWrap.wrap(" 1. ", "    ", "short", 100)).containsExactly(" 1. short");
        String word = "x".repeat(150);
        List<String> lines = TextWrap.wrap("  at ", "     ", word + " tail", 100);
        assertThat(lines).containsExactly("  at " + word, "     tail");
    }
}
