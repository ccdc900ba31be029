package io.stallscope.agent.docs;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/reference.md's option, op and metric tables are the generated ones: regenerate with ReferenceTables when this fails. */
class ReadmeTablesTest {
    @Test
    void readmeCarriesTheGeneratedTables() throws Exception {
        Path readme = Path.of("..", "docs", "reference.md");
        String text = Files.readString(readme);
        int begin = text.indexOf(ReferenceTables.BEGIN);
        int end = text.indexOf(ReferenceTables.END);
        assertThat(begin).as("docs/reference.md has the generated block").isNotNegative();
        assertThat(text.substring(begin, end + ReferenceTables.END.length()) + "\n")
            .as("docs/reference.md tables are stale: run io.stallscope.agent.docs.ReferenceTables and paste its output")
            .isEqualTo(ReferenceTables.markdown());
    }
}
