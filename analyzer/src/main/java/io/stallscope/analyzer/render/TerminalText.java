package io.stallscope.analyzer.render;

/**
 * Text from a recording made safe to print on a terminal: thread, class and frame names come from the file, and a
 * crafted one could carry escape sequences (clear the screen, retitle the window, hide lines). Control characters,
 * line and paragraph separators and bidirectional overrides are shown as {@code \u001b}; all else is left as it is.
 */
public final class TerminalText {
    private TerminalText() {
    }

    public static String escape(String s) {
        if (s == null) return null;
        int i = 0;
        while (i < s.length() && !unsafe(s.charAt(i))) i++;
        if (i == s.length()) return s; // the usual case: nothing to copy
        StringBuilder sb = new StringBuilder(s.length() + 16).append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (unsafe(c)) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.toString();
    }

    private static boolean unsafe(char c) {
        if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true; // C0, DEL, C1 (0x9b starts a sequence as ESC [ does)
        if (c < 0x2028) return false;
        return c <= 0x202e || (c >= 0x2066 && c <= 0x2069); // separators, bidi embeddings and overrides, isolates
    }
}
