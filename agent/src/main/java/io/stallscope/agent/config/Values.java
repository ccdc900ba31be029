package io.stallscope.agent.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Parsers for option values. Each throws IllegalArgumentException with a short reason. */
final class Values {
    private Values() {
    }

    static Boolean bool(String v) {
        switch (v.toLowerCase(Locale.ROOT)) {
            case "true": case "on": case "yes": case "1":
                return Boolean.TRUE;
            case "false": case "off": case "no": case "0":
                return Boolean.FALSE;
            default:
                throw new IllegalArgumentException("expected true or false");
        }
    }

    /** How safepoints are timed: auto, jfr, counters or off (true is auto, false is off, as before there was a choice). */
    static String safepointTiming(String v) {
        String lower = v.toLowerCase(Locale.ROOT);
        switch (lower) {
            case "auto": case "jfr": case "counters": case "off":
                return lower;
            default:
                try {
                    return bool(v) ? "auto" : "off";
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("expected auto, jfr, counters or off");
                }
        }
    }

    /** A duration with a unit: 500us, 20ms, 2s, 1m; a bare 0 is allowed. Returns nanoseconds. */
    static Long duration(String v) {
        if (v.equals("0")) {
            return 0L;
        }
        int i = 0;
        while (i < v.length() && (Character.isDigit(v.charAt(i)) || v.charAt(i) == '.')) {
            i++;
        }
        if (i == 0 || i == v.length()) {
            throw new IllegalArgumentException("expected a duration with a unit, such as 20ms, 500us or 2s");
        }
        double amount;
        try {
            amount = Double.parseDouble(v.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected a duration with a unit, such as 20ms, 500us or 2s");
        }
        String unit = v.substring(i).trim().toLowerCase(Locale.ROOT);
        double nanosPerUnit;
        switch (unit) {
            case "ns": nanosPerUnit = 1; break;
            case "us": case "µs": nanosPerUnit = 1e3; break;
            case "ms": nanosPerUnit = 1e6; break;
            case "s": nanosPerUnit = 1e9; break;
            case "m": case "min": nanosPerUnit = 60e9; break;
            default:
                throw new IllegalArgumentException("unknown unit '" + unit + "' (use ns, us, ms, s or m)");
        }
        return (long) (amount * nanosPerUnit);
    }

    static Integer positiveInt(String v) {
        try {
            int n = Integer.parseInt(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // fall through to the one message
        }
        throw new IllegalArgumentException("expected a whole number above 0");
    }

    static Pattern regex(String v) {
        try {
            return Pattern.compile(v);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("not a valid regular expression: " + e.getDescription());
        }
    }

    static String text(String v) {
        if (v.isEmpty()) {
            throw new IllegalArgumentException("expected a value");
        }
        return v;
    }

    static List<String> list(String v) {
        List<String> out = new ArrayList<>();
        for (String part : v.split("[,;+ ]+")) {
            if (!part.isEmpty()) {
                out.add(part.trim());
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("expected a list");
        }
        return out;
    }

    static Endpoint endpoint(String v) {
        return Endpoint.parse(v);
    }
}
