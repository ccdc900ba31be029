package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Finding;
import org.junit.jupiter.api.Test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** A finding's "show on the timeline" link filters to exactly its two threads, whatever their names hold. */
class MomentLinkTest {
    @Test
    void theLinksFilterMatchesBothThreadsAndNoOther() {
        String writer = "data-plane-kafka-request-handler-5";
        String reader = "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0";
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("writerThread", writer);
        details.put("readerThread", reader);
        details.put("overlapStartMs", 2455.744);
        String link = HtmlReport.momentLink(new Finding(Finding.WRITE_BEHIND_SENDFILE, "s", List.of(writer, reader), List.of(), 1, details));
        String href = link.replaceAll(".*href=\"#([^\"]*)\".*", "$1").replace("&amp;", "&");
        Map<String, String> hash = new LinkedHashMap<>();
        for (String kv : href.split("&")) {
            int i = kv.indexOf('=');
            hash.put(kv.substring(0, i), URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8));
        }
        assertThat(hash.get("t")).isEqualTo("2455.74");
        // the page compiles it as a JavaScript RegExp; these escapes mean the same in Java's
        Pattern p = Pattern.compile(hash.get("filter"), Pattern.CASE_INSENSITIVE);
        assertThat(p.matcher(writer).find()).isTrue();
        assertThat(p.matcher(reader).find()).isTrue();
        assertThat(p.matcher("data-plane-kafka-request-handler-55").find()).isFalse();
        assertThat(p.matcher("data-plane-kafka-network-thread-1-ListenerNameXPLAINTEXTX-PLAINTEXT-0").find()).isFalse();
        assertThat(HtmlReport.momentLink(new Finding(Finding.SLOW_OP, "s", List.of(writer), List.of(), 1))).isEmpty();
    }
}
