package io.stallscope.analyzer.render;

import io.stallscope.analyzer.analysis.Finding;
import io.stallscope.analyzer.analysis.view.ReportViews;
import org.junit.jupiter.api.Test;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** A finding's "show on the timeline" link filters to exactly its threads, whatever their names hold, at its moment. */
class MomentLinkTest {
    private static final long ORIGIN = 1_700_000_000_000_000_000L;
    private static final String WRITER = "data-plane-kafka-request-handler-5";
    private static final String READER = "data-plane-kafka-network-thread-1-ListenerName(PLAINTEXT)-PLAINTEXT-0";

    @Test
    void theLinksFilterMatchesBothThreadsAndNoOther() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("writerThread", WRITER);
        details.put("readerThread", READER);
        // a write-behind finding lists further pairs' threads too; its link is about the first pair
        Finding f = new Finding(Finding.WRITE_BEHIND_SENDFILE, "s", List.of(WRITER, READER, "data-plane-kafka-request-handler-7"),
                List.of(), 1, details).at(ORIGIN + 2_455_744_000L);
        Map<String, String> hash = hash(HtmlReport.momentLink(ReportViews.moment(f, ORIGIN)));
        assertThat(hash.get("t")).isEqualTo("2455.74");
        // the page compiles it as a JavaScript RegExp; these escapes mean the same in Java's
        Pattern p = Pattern.compile(hash.get("filter"), Pattern.CASE_INSENSITIVE);
        assertThat(p.matcher(WRITER).find()).isTrue();
        assertThat(p.matcher(READER).find()).isTrue();
        assertThat(p.matcher("data-plane-kafka-request-handler-7").find()).isFalse();
        assertThat(p.matcher("data-plane-kafka-request-handler-55").find()).isFalse();
        assertThat(p.matcher("data-plane-kafka-network-thread-1-ListenerNameXPLAINTEXTX-PLAINTEXT-0").find()).isFalse();
    }

    @Test
    void everyKindWithAMomentLinksToItAndOneWithoutGetsNoLink() {
        Finding slow = new Finding(Finding.SLOW_OP, "s", List.of(WRITER), List.of(), 1).at(ORIGIN + 12_000_000L);
        Map<String, String> hash = hash(HtmlReport.momentLink(ReportViews.moment(slow, ORIGIN)));
        assertThat(hash.get("t")).isEqualTo("12.00");
        assertThat(Pattern.compile(hash.get("filter")).matcher(WRITER).matches()).isTrue();
        assertThat(HtmlReport.momentLink(ReportViews.moment(new Finding(Finding.SLOW_OP, "s", List.of(WRITER), List.of(), 1), ORIGIN)))
                .isEmpty();
    }

    private static Map<String, String> hash(String link) {
        assertThat(link).contains("show on the timeline");
        String href = link.replaceAll(".*href=\"#([^\"]*)\".*", "$1").replace("&amp;", "&");
        Map<String, String> hash = new LinkedHashMap<>();
        for (String kv : href.split("&")) {
            int i = kv.indexOf('=');
            hash.put(kv.substring(0, i), URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8));
        }
        return hash;
    }
}
