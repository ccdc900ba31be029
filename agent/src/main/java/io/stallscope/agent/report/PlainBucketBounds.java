package io.stallscope.agent.report;

import java.math.BigDecimal;

/**
 * Rewrites bucket bounds the Prometheus client prints in Java's scientific notation ({@code le="1.0E-5"})
 * as plain decimals ({@code le="0.00001"}), which is what people type in queries and read in dashboards.
 * Bounds already plain ({@code le="0.025"}, {@code le="10.0"}, {@code le="+Inf"}) are left as they are, so
 * queries written against them keep working.
 */
final class PlainBucketBounds {
    private static final String LE = "le=\"";

    private PlainBucketBounds() {
    }

    static String rewrite(String scrape) {
        int at = scrape.indexOf(LE);
        if (at < 0) {
            return scrape;
        }
        StringBuilder out = new StringBuilder(scrape.length());
        int copied = 0;
        while (at >= 0) {
            int start = at + LE.length();
            int end = scrape.indexOf('"', start);
            if (end < 0) {
                break;
            }
            String value = scrape.substring(start, end);
            char before = at == 0 ? '{' : scrape.charAt(at - 1);
            // the label le itself, not the tail of another one such as role="..."
            if ((before == '{' || before == ',') && value.indexOf('E') >= 0) {
                out.append(scrape, copied, start).append(plain(value));
                copied = end;
            }
            at = scrape.indexOf(LE, end);
        }
        return out.append(scrape, copied, scrape.length()).toString();
    }

    static String plain(String value) {
        try {
            return new BigDecimal(value).stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return value;
        }
    }
}
